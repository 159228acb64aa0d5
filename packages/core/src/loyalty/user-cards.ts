import { SqlClient } from "@effect/sql"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { userClientAt } from "../accounts/service.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound } from "../errors.js"
import type { CardId, EmpresaId, ProgramId, UserId } from "../ids.js"
import { Redemptions } from "../redemptions/service.js"
import type { CardProgress, ClaimRewardResult } from "./contracts.js"
import { LoyaltyPrograms } from "./programs.js"
import { LoyaltyCards } from "./service.js"
import { traced } from "../tracing.js"

interface ProgramRow {
  readonly empresa_id: EmpresaId
  readonly name: string
  readonly stamps_required: number
  readonly reward_description: string
}

/** Stamp cards as a user sees them: a store's definitions, their progress, and claiming the reward. */
export class UserCards extends Effect.Service<UserCards>()("core/UserCards", {
  accessors: true,
  dependencies: [LoyaltyPrograms.Default, LoyaltyCards.Default, Redemptions.Default, Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const programs = yield* LoyaltyPrograms
    const cards = yield* LoyaltyCards
    const redemptions = yield* Redemptions
    const empresas = yield* Empresas

    const definitions = traced("UserCards.definitions")(function* (empresaId: EmpresaId) {
      yield* empresas.get(empresaId)
      const rows = yield* programs.list(empresaId, { active: true })
      return {
        cards: rows.map(({ id, name, stamps_required, reward_description, image_url, active }) => ({
          id,
          name,
          stamps_required,
          reward_description,
          image_url,
          active
        }))
      }
    })

    const programOf = (programId: ProgramId) =>
      sql<ProgramRow>`
        SELECT empresa_id, name, stamps_required, reward_description
        FROM loyalty_programs WHERE id = ${programId}`.pipe(
        Effect.flatMap(([row]) =>
          row === undefined
            ? Effect.fail(new NotFound({ resource: "Loyalty card", id: programId }))
            : Effect.succeed(row)
        )
      )

    /** The user's open (unclaimed) card of the program, when the store issued one. */
    const openCard = (userId: UserId, program: ProgramRow, programId: ProgramId) =>
      Effect.gen(function* () {
        const client = yield* userClientAt(userId, program.empresa_id)
        if (client === undefined) return undefined
        const [card] = yield* sql<{ id: CardId; stamps: number; max_stamps: number; status: string }>`
          SELECT id, stamps, max_stamps, status FROM loyalty_cards
          WHERE empresa_id = ${program.empresa_id} AND client_id = ${client.id} AND program_id = ${programId}
            AND status <> 'claimed'`
        return card
      })

    const progress = traced("UserCards.progress")(function* (userId: UserId, programId: ProgramId) {
      const program = yield* programOf(programId)
      const card = yield* openCard(userId, program, programId)
      const collected = card?.stamps ?? 0
      const required = card?.max_stamps ?? program.stamps_required
      return {
        card_id: programId,
        card_name: program.name,
        stamps_collected: collected,
        stamps_required: required,
        progress_percentage: Math.floor((collected * 100) / required),
        reward_available: card?.status === "completed",
        reward_description: program.reward_description
      } satisfies CardProgress
    })

    /**
     * Claims the user's full card with the loyalty area's own claim (which opens the next cycle)
     * and issues the code the counter validates, in one transaction; of parallel claims one wins.
     */
    const claimReward = traced("UserCards.claimReward")(function* (userId: UserId, programId: ProgramId) {
      const program = yield* programOf(programId)
      const card = yield* openCard(userId, program, programId)
      if (card === undefined) {
        return yield* new Conflict({ code: "CARD_NOT_COMPLETED", message: `You have no stamps on ${program.name} yet` })
      }
      const { claimed_card } = yield* cards.claim(program.empresa_id, card.id)
      const redemption = yield* redemptions.create({
        empresaId: program.empresa_id,
        clientId: claimed_card.client_id,
        kind: "card",
        cardId: card.id,
        productName: program.reward_description,
        quantity: 1,
        pointsSpent: 0
      })
      return {
        success: true,
        redemption_code: redemption.code,
        qr_code_url: redemptions.present(redemption).qr_code_url,
        reward: program.reward_description,
        expires_at: redemption.expires_at
      } satisfies ClaimRewardResult
    }, inTransaction(sql))

    return sqlErrorsAsDefects({ definitions, progress, claimReward })
  })
}) {}
