import { SqlClient, type Statement } from "@effect/sql"
import { inTransaction, onUniqueViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Conflict, NotFound } from "../errors.js"
import type { CardId, ClientId, EmpresaId, ProgramId } from "../ids.js"
import { insertEvent, recordEvent } from "../timeline/service.js"
import type {
  ClaimResult,
  IssueCardInput,
  ListCardsInput,
  LoyaltyCard,
  LoyaltyProgress,
  StampCardInput
} from "./contracts.js"
import { traced } from "../tracing.js"

/** A card as listed: its progress row with the program's name and reward. */
const CARD_SELECT = `
  SELECT c.id, c.client_id, c.program_id, p.name AS program_name, p.reward_description,
         c.stamps, c.max_stamps, c.status <> 'active' AS completed, c.status,
         c.completed_at, c.claimed_at, c.created_at, c.updated_at
  FROM loyalty_cards c JOIN loyalty_programs p ON p.empresa_id = c.empresa_id AND p.id = c.program_id`

interface CardState {
  readonly status: LoyaltyCard["status"]
  readonly stamps: number
  readonly max_stamps: number
  readonly program_active: boolean
}

const cardNotFound = (id: string) => new NotFound({ resource: "Loyalty card", id })

const completedRefusal = (id: string) =>
  new Conflict({
    code: "CARD_COMPLETED",
    message: `Card ${id} is already complete; claim its reward, then stamp the client's next card`
  })

/**
 * Cards issued to clients and their life cycle: active -> completed (the stamp that fills it) ->
 * claimed (the reward given), which opens a fresh card of the same program.
 */
export class LoyaltyCards extends Effect.Service<LoyaltyCards>()("core/LoyaltyCards", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql.literal(CARD_SELECT)

    const byIds = (empresaId: EmpresaId, ids: ReadonlyArray<CardId>) =>
      sql<LoyaltyCard>`${select} WHERE c.empresa_id = ${empresaId} AND c.id IN ${sql.in(ids)}`

    /** Why a conditional update matched nothing: read once, after the fact, to name the refusal. */
    const stateOf = (empresaId: EmpresaId, cardId: CardId) =>
      sql<CardState>`
        SELECT c.status, c.stamps, c.max_stamps, p.active AS program_active
        FROM loyalty_cards c JOIN loyalty_programs p ON p.empresa_id = c.empresa_id AND p.id = c.program_id
        WHERE c.empresa_id = ${empresaId} AND c.id = ${cardId}`.pipe(Effect.map((rows) => rows[0]))

    /** Newest first; `starting_after` continues after a card of a previous call. */
    const list = traced("LoyaltyCards.list")(function* (empresaId: EmpresaId, input: ListCardsInput) {
      const filters: Array<Statement.Fragment> = [
        sql`c.empresa_id = ${empresaId}`,
        ...(input.client_id ? [sql`c.client_id = ${input.client_id}`] : []),
        ...(input.program_id ? [sql`c.program_id = ${input.program_id}`] : []),
        ...(input.status ? [sql`c.status = ${input.status}`] : [])
      ]
      if (input.starting_after !== undefined) {
        const cursor = sql`SELECT created_at, id FROM loyalty_cards
                           WHERE empresa_id = ${empresaId} AND id = ${input.starting_after}`
        const [found] = yield* cursor
        if (found === undefined) return yield* cardNotFound(input.starting_after)
        // Compared in SQL: the instant travels to JS in milliseconds, Postgres keeps microseconds.
        filters.push(sql`(c.created_at, c.id) < (${cursor})`)
      }
      const rows = yield* sql<LoyaltyCard>`
        ${select} WHERE ${sql.and(filters)}
        ORDER BY c.created_at DESC, c.id DESC
        LIMIT ${input.limit}`
      return [...rows]
    })

    /**
     * Issues a card of an active program to a client; the goal is the program's current
     * `stamps_required`. A client holds at most one open (unclaimed) card per program.
     */
    const issue = traced("LoyaltyCards.issue")(function* (empresaId: EmpresaId, input: IssueCardInput) {
      const [issued] = yield* sql<{ id: CardId }>`
        INSERT INTO loyalty_cards (empresa_id, client_id, program_id, max_stamps)
        SELECT p.empresa_id, c.id, p.id, p.stamps_required
        FROM loyalty_programs p JOIN clients c ON c.empresa_id = p.empresa_id AND c.id = ${input.client_id}
        WHERE p.empresa_id = ${empresaId} AND p.id = ${input.program_id} AND p.active
        RETURNING id`.pipe(
        onUniqueViolation(
          () =>
            new Conflict({
              code: "CARD_ALREADY_ISSUED",
              message: "The client already has an open card of this program; stamp it or claim its reward first"
            })
        )
      )
      if (issued === undefined) {
        const [found] = yield* sql<{ client: boolean; program_active: boolean | null }>`
          SELECT EXISTS (SELECT 1 FROM clients WHERE empresa_id = ${empresaId} AND id = ${input.client_id}) AS client,
                 (SELECT active FROM loyalty_programs
                  WHERE empresa_id = ${empresaId} AND id = ${input.program_id}) AS program_active`
        if (!found?.client) return yield* new NotFound({ resource: "Client", id: input.client_id })
        if (found.program_active === null)
          return yield* new NotFound({ resource: "Loyalty program", id: input.program_id })
        return yield* new Conflict({
          code: "PROGRAM_INACTIVE",
          message: `Program ${input.program_id} is inactive: it issues no cards`
        })
      }
      const [card] = yield* byIds(empresaId, [issued.id])
      return card!
    })

    /**
     * Adds stamps with one conditional update (never read-then-write): the card's row lock
     * serializes concurrent stamps and each re-checks the room left, so a card never exceeds its
     * goal. The stamp log entry and the timeline event are written by the same statement.
     */
    const stamp = traced("LoyaltyCards.stamp")(function* (empresaId: EmpresaId, input: StampCardInput) {
      const { card_id: cardId, quantity } = input
      const title = quantity === 1 ? "+1 stamp" : `+${quantity} stamps`
      const [progress] = yield* sql<LoyaltyProgress>`
        WITH card AS (
          UPDATE loyalty_cards c
          SET stamps = c.stamps + ${quantity},
              status = CASE WHEN c.stamps + ${quantity} = c.max_stamps THEN 'completed' ELSE 'active' END,
              completed_at = CASE WHEN c.stamps + ${quantity} = c.max_stamps THEN now() END,
              updated_at = now()
          FROM loyalty_programs p
          WHERE c.empresa_id = ${empresaId} AND c.id = ${cardId}
            AND c.status = 'active' AND c.stamps + ${quantity} <= c.max_stamps
            AND p.empresa_id = c.empresa_id AND p.id = c.program_id AND p.active
          RETURNING c.id, c.client_id, c.program_id, c.stamps, c.max_stamps, c.status = 'completed' AS completed,
                    p.name AS program_name
        ), logged AS (
          INSERT INTO loyalty_stamps (empresa_id, card_id, client_id, program_id, quantity)
          SELECT ${empresaId}, id, client_id, program_id, ${quantity} FROM card
          RETURNING id
        ), event AS (${insertEvent(
          sql,
          {
            empresaId,
            clientId: sql`card.client_id`,
            type: "interaction",
            title,
            description: sql`card.program_name || ': ' || card.stamps || ' of ' || card.max_stamps || ' stamps'`,
            points: 0,
            metadata: sql`jsonb_build_object(
              'interaction_type', 'loyalty_stamp', 'card_id', card.id, 'program_id', card.program_id,
              'program_name', card.program_name, 'quantity', ${quantity}::int, 'stamps', card.stamps,
              'max_stamps', card.max_stamps, 'completed', card.completed, 'stamp_id', logged.id)`
          },
          sql`card, logged`
        )})
        SELECT id AS card_id, client_id, program_id, stamps, max_stamps, completed, ${quantity}::int AS stamped
        FROM card`
      if (progress !== undefined) return progress

      const state = yield* stateOf(empresaId, cardId)
      if (state === undefined) return yield* cardNotFound(cardId)
      if (state.status !== "active") return yield* completedRefusal(cardId)
      if (state.program_active && state.stamps + quantity > state.max_stamps) {
        const remaining = state.max_stamps - state.stamps
        return yield* new Conflict({
          code: "STAMPS_EXCEED_REMAINING",
          message:
            `Card ${cardId} needs ${remaining} more stamp${remaining === 1 ? "" : "s"}; ` +
            `${quantity} would exceed its ${state.max_stamps}`
        })
      }
      return yield* new Conflict({
        code: "PROGRAM_INACTIVE",
        message: `The program of card ${cardId} is inactive: it takes no stamps`
      })
    })

    /**
     * Gives a completed card's reward: marks it claimed and, while the program is active, opens a
     * fresh card of the same program for the next cycle, in one transaction. Staff call it over
     * the company API; the end-user claim-reward reuses it.
     */
    const claim = traced("LoyaltyCards.claim")(function* (empresaId: EmpresaId, cardId: CardId) {
      const [claimed] = yield* sql<{ client_id: ClientId; program_id: ProgramId }>`
        UPDATE loyalty_cards SET status = 'claimed', claimed_at = now(), updated_at = now()
        WHERE empresa_id = ${empresaId} AND id = ${cardId} AND status = 'completed'
        RETURNING client_id, program_id`
      if (claimed === undefined) {
        const state = yield* stateOf(empresaId, cardId)
        if (state === undefined) return yield* cardNotFound(cardId)
        if (state.status === "claimed") {
          return yield* new Conflict({
            code: "CARD_ALREADY_CLAIMED",
            message: `The reward of card ${cardId} was already claimed`
          })
        }
        return yield* new Conflict({
          code: "CARD_NOT_COMPLETED",
          message: `Card ${cardId} has ${state.stamps} of ${state.max_stamps} stamps; its reward is not available yet`
        })
      }
      const [next] = yield* sql<{ id: CardId }>`
        INSERT INTO loyalty_cards (empresa_id, client_id, program_id, max_stamps)
        SELECT empresa_id, ${claimed.client_id}, id, stamps_required FROM loyalty_programs
        WHERE empresa_id = ${empresaId} AND id = ${claimed.program_id} AND active
        RETURNING id`
      const cards = yield* byIds(empresaId, next ? [cardId, next.id] : [cardId])
      const claimedCard = cards.find((c) => c.id === cardId)!
      const nextCard = cards.find((c) => c.id === next?.id) ?? null
      yield* recordEvent({
        empresaId,
        clientId: claimedCard.client_id,
        type: "reward",
        title: `Reward claimed: ${claimedCard.reward_description}`,
        description: claimedCard.program_name,
        points: 0,
        // Spec 2.4's reward metadata (reward_uid, product_name): a card's reward is no catalogue reward.
        metadata: {
          reward_uid: null,
          product_name: claimedCard.reward_description,
          card_id: cardId,
          program_id: claimedCard.program_id,
          program_name: claimedCard.program_name,
          reward_description: claimedCard.reward_description,
          next_card_id: nextCard?.id ?? null
        }
      })
      return { claimed_card: claimedCard, next_card: nextCard } satisfies ClaimResult
    }, inTransaction(sql))

    return sqlErrorsAsDefects({ list, issue, stamp, claim })
  })
}) {}
