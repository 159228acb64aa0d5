import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import { ReferralCampaigns } from "./service.js"

/** Credits a referral bonus to a client of the store, through the points' one write path. */
export type BonusCredit<E> = (
  clientId: ClientId,
  points: number,
  metadata: Readonly<Record<string, unknown>>
) => Effect.Effect<unknown, E>

/**
 * Completes a user's pending referral (the code given at registration) when the user first earns
 * points at a store running a referral campaign: both sides get that campaign's bonuses there,
 * once (design.md "End user"; docs/decisions.md "Referral completion").
 */
export class ReferralCompletion extends Effect.Service<ReferralCompletion>()("core/ReferralCompletion", {
  dependencies: [ReferralCampaigns.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const campaigns = yield* ReferralCampaigns

    /**
     * Runs in the transaction of the credit that earned the points. The conditional update of
     * `referral_completed_at` takes the user's row lock, so of parallel credits (at one store or
     * several) exactly one completes the referral; the others see it done. The referred account
     * must have verified its email: else whoever registered someone else's address with their own
     * code would be paid for that person's purchases.
     */
    const complete = <E>(
      empresaId: EmpresaId,
      referred: { clientId: ClientId; userId: UserId },
      credit: BonusCredit<E>
    ) =>
      Effect.gen(function* () {
        const campaign = yield* campaigns.runningCampaign(empresaId)
        if (Option.isNone(campaign)) return
        const [claimed] = yield* sql<{ code: string; nome: string }>`
          UPDATE users SET referral_completed_at = now()
          WHERE id = ${referred.userId} AND referral_completed_at IS NULL AND pending_referral_code IS NOT NULL
            AND email_verified_at IS NOT NULL
          RETURNING pending_referral_code AS code, nome`
        if (claimed === undefined) return
        const [referrer] = yield* sql<{ id: UserId; nome: string; email: string }>`
          SELECT id, nome, email FROM users
          WHERE referral_code = ${claimed.code} AND id <> ${referred.userId} AND password_hash IS NOT NULL`
        if (referrer === undefined) return
        // The referrer may never have been to this store: the bonus needs a client record there.
        yield* sql`
          INSERT INTO clients (empresa_id, user_id, nome, email)
          VALUES (${empresaId}, ${referrer.id}, ${referrer.nome}, ${referrer.email})
          ON CONFLICT DO NOTHING`
        const [referrerClient] = yield* sql<{ id: ClientId }>`
          SELECT id FROM clients WHERE empresa_id = ${empresaId} AND user_id = ${referrer.id}`
        const { id: campaignId, referrer_bonus, referred_bonus } = campaign.value
        const [referral] = yield* sql<{ id: string }>`
          INSERT INTO referrals (empresa_id, referrer_user_id, referred_user_id, referrer_client_id, referred_client_id,
                                 status, campaign_id, referrer_bonus, referred_bonus, completed_at)
          VALUES (${empresaId}, ${referrer.id}, ${referred.userId}, ${referrerClient?.id ?? null}, ${referred.clientId},
                  'completed', ${campaignId}, ${referrer_bonus}, ${referred_bonus}, now())
          RETURNING id`
        const metadata = { referral_id: referral!.id, referred_name: claimed.nome, referrer_name: referrer.nome }
        if (referred_bonus > 0) yield* credit(referred.clientId, referred_bonus, metadata)
        if (referrer_bonus > 0 && referrerClient !== undefined)
          yield* credit(referrerClient.id, referrer_bonus, metadata)
      })

    return { complete }
  })
}) {}
