import { SqlClient } from "@effect/sql"
import { constraintOf, inTransaction, isCheckViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { Conflict, NotFound, ValidationFailed } from "../errors.js"
import { REFERRAL_CAP_DAYS, settingsOf } from "../empresas/contracts.js"
import type { CampaignId, ClientId, EmpresaId, UserId } from "../ids.js"
import { recordEvent } from "../timeline/service.js"
import type { CreateCampaignInput, ReferralCampaign, UpdateCampaignInput } from "./contracts.js"
import { traced } from "../tracing.js"

const CAMPAIGN_COLUMNS = `
  id, name, referrer_bonus, referred_bonus, starts_at, ends_at, active,
  CASE
    WHEN NOT active THEN 'inactive'
    WHEN ends_at IS NOT NULL AND ends_at <= now() THEN 'ended'
    WHEN starts_at > now() THEN 'scheduled'
    ELSE 'running'
  END AS status,
  created_at, updated_at`

/**
 * The database's window check stands behind the schema's: a PATCH may move one end only, and a
 * create without starts_at starts now. The field named is the one the caller sent.
 */
const onBadWindow =
  (field: "starts_at" | "ends_at") =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | ValidationFailed, R> =>
    Effect.catchIf(
      self,
      (error) => isCheckViolation(error) && constraintOf(error) === "referral_campaigns_window_check",
      () =>
        Effect.fail(
          new ValidationFailed({
            issues: [{ loc: ["body", field], msg: "ends_at must be after starts_at", type: "value_error" }]
          })
        )
    )

export class ReferralCampaigns extends Effect.Service<ReferralCampaigns>()("core/ReferralCampaigns", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(CAMPAIGN_COLUMNS)

    /**
     * Serializes campaign writes of one empresa for the rest of the transaction, so the overlap
     * check that follows sees every committed campaign and no concurrent writer slips past it.
     * NO KEY UPDATE leaves foreign-key checks against the empresa unblocked.
     */
    const lockCampaigns = (empresaId: EmpresaId) =>
      sql`SELECT id FROM empresas WHERE id = ${empresaId} FOR NO KEY UPDATE`

    /** At most one active campaign covers any instant: the referral flow pays "the" running one. */
    const refuseOverlap = traced("ReferralCampaigns.refuseOverlap")(function* (
      empresaId: EmpresaId,
      campaignId: CampaignId
    ) {
      const [other] = yield* sql<{ id: CampaignId; name: string }>`
        SELECT o.id, o.name
        FROM referral_campaigns c
        JOIN referral_campaigns o ON o.empresa_id = c.empresa_id AND o.id <> c.id AND o.active
        WHERE c.empresa_id = ${empresaId} AND c.id = ${campaignId} AND c.active
          AND tstzrange(o.starts_at, o.ends_at) && tstzrange(c.starts_at, c.ends_at)
        ORDER BY o.starts_at
        LIMIT 1`
      if (other !== undefined) {
        return yield* new Conflict({
          code: "CAMPAIGN_OVERLAP",
          message:
            `The window overlaps active campaign ${other.id} (${other.name}); end or deactivate it first, ` +
            `or choose another window`
        })
      }
    })

    /** Newest first; `status` is computed at read time. */
    const list = traced("ReferralCampaigns.list")(function* (empresaId: EmpresaId) {
      const rows = yield* sql<ReferralCampaign>`
        SELECT ${columns} FROM referral_campaigns WHERE empresa_id = ${empresaId}
        ORDER BY created_at DESC, id DESC`
      return [...rows]
    })

    const create = traced("ReferralCampaigns.create")(function* (empresaId: EmpresaId, input: CreateCampaignInput) {
      yield* lockCampaigns(empresaId)
      const [row] = yield* sql<ReferralCampaign>`
        INSERT INTO referral_campaigns (empresa_id, name, referrer_bonus, referred_bonus, starts_at, ends_at, active)
        VALUES (${empresaId}, ${input.name}, ${input.referrer_bonus}, ${input.referred_bonus},
                COALESCE(${input.starts_at ?? null}::timestamptz, now()), ${input.ends_at ?? null}, ${input.active})
        RETURNING ${columns}`.pipe(onBadWindow("ends_at"))
      yield* refuseOverlap(empresaId, row!.id)
      return row!
    }, inTransaction(sql))

    const update = traced("ReferralCampaigns.update")(function* (empresaId: EmpresaId, input: UpdateCampaignInput) {
      const { campaign_id, ...fields } = input
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      yield* lockCampaigns(empresaId)
      const [row] =
        Object.keys(set).length === 0
          ? yield* sql<ReferralCampaign>`
              SELECT ${columns} FROM referral_campaigns WHERE empresa_id = ${empresaId} AND id = ${campaign_id}`
          : yield* sql<ReferralCampaign>`
              UPDATE referral_campaigns SET ${sql.update(set)}, updated_at = now()
              WHERE empresa_id = ${empresaId} AND id = ${campaign_id}
              RETURNING ${columns}`.pipe(onBadWindow(fields.ends_at !== undefined ? "ends_at" : "starts_at"))
      if (row === undefined) return yield* new NotFound({ resource: "Referral campaign", id: campaign_id })
      yield* refuseOverlap(empresaId, row.id)
      return row
    }, inTransaction(sql))

    /**
     * The campaign whose bonuses a referral completing at `at` (default: now) earns: the active
     * one whose window contains that instant. Overlaps are refused, so there is at most one.
     */
    const runningCampaign = traced("ReferralCampaigns.runningCampaign")(function* (empresaId: EmpresaId, at?: Date) {
      const instant = at?.toISOString() ?? null
      const [row] = yield* sql<ReferralCampaign>`
        SELECT ${columns} FROM referral_campaigns
        WHERE empresa_id = ${empresaId} AND active
          AND starts_at <= COALESCE(${instant}::timestamptz, now())
          AND (ends_at IS NULL OR ends_at > COALESCE(${instant}::timestamptz, now()))
        ORDER BY starts_at DESC
        LIMIT 1`
      return Option.fromNullable(row)
    })

    return sqlErrorsAsDefects({ list, create, update, runningCampaign })
  })
}) {}

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
 * (docs/architecture.md, "End users"; docs/decisions.md "Referral completion", "Referral farming").
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
