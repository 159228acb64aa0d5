import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { REFERRAL_CAP_DAYS, settingsOf } from "../empresas/contracts.js"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import { recordEvent } from "../timeline/events.js"
import { ReferralCampaigns } from "./service.js"

/** Credits a referral bonus to a client of the store, through the points' one write path. */
export type BonusCredit<E> = (
  clientId: ClientId,
  points: number,
  metadata: Readonly<Record<string, unknown>>
) => Effect.Effect<unknown, E>

/**
 * Completes a user's pending referral (the code given at registration) at the user's first purchase
 * credit at a store running a referral campaign: both sides get that campaign's bonuses there,
 * once, unless the referrer was already paid the store's `referral_bonus_cap` in the window
 * (design.md "End user"; docs/decisions.md "Referral completion", "Referral farming").
 */
export class ReferralCompletion extends Effect.Service<ReferralCompletion>()("core/ReferralCompletion", {
  dependencies: [ReferralCampaigns.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const campaigns = yield* ReferralCampaigns

    /**
     * Whether the referrer already had the empresa's `referral_bonus_cap` of paid referrals in the
     * window: farming with many accounts pays at most that much a month.
     */
    const overCap = (empresaId: EmpresaId, referrerClientId: ClientId) =>
      Effect.gen(function* () {
        const [empresa] = yield* sql<{ settings: Record<string, unknown> }>`
          SELECT settings FROM empresas WHERE id = ${empresaId}`
        const cap = settingsOf(empresa!).referral_bonus_cap
        if (cap === null) return false
        const [paid] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM referrals
          WHERE empresa_id = ${empresaId} AND referrer_client_id = ${referrerClientId} AND status = 'completed'
            AND referrer_bonus + referred_bonus > 0
            AND completed_at > now() - make_interval(days => ${REFERRAL_CAP_DAYS})`
        return paid!.n >= cap
      })

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
        if (referrerClient === undefined) return yield* Effect.dieMessage(`No client of referrer ${referrer.id}`)
        // Of one referrer's referrals completing in parallel, each counts the ones before it.
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`referral-cap:${referrerClient.id}`}))`
        const capped = yield* overCap(empresaId, referrerClient.id)
        const { id: campaignId } = campaign.value
        const [referrer_bonus, referred_bonus] = capped
          ? [0, 0]
          : [campaign.value.referrer_bonus, campaign.value.referred_bonus]
        const [referral] = yield* sql<{ id: string }>`
          INSERT INTO referrals (empresa_id, referrer_user_id, referred_user_id, referrer_client_id, referred_client_id,
                                 status, campaign_id, referrer_bonus, referred_bonus, completed_at)
          VALUES (${empresaId}, ${referrer.id}, ${referred.userId}, ${referrerClient.id}, ${referred.clientId},
                  'completed', ${campaignId}, ${referrer_bonus}, ${referred_bonus}, now())
          RETURNING id`
        const metadata = { referral_id: referral!.id, referred_name: claimed.nome, referrer_name: referrer.nome }
        if (capped) {
          // Both sides learn why this referral paid nothing, on their timelines.
          for (const clientId of [referred.clientId, referrerClient.id]) {
            yield* recordEvent({
              empresaId,
              clientId,
              type: "referral",
              title: "Referral without bonus",
              description:
                "The referrer already had the store's limit of referral bonuses " +
                `in the last ${REFERRAL_CAP_DAYS} days`,
              metadata: { ...metadata, bonus_capped: true }
            }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
          }
          return
        }
        if (referred_bonus > 0) yield* credit(referred.clientId, referred_bonus, metadata)
        if (referrer_bonus > 0) yield* credit(referrerClient.id, referrer_bonus, metadata)
      })

    return { complete }
  })
}) {}
