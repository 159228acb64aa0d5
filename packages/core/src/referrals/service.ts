import { SqlClient } from "@effect/sql"
import { constraintOf, inTransaction, isCheckViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { Conflict, NotFound, ValidationFailed } from "../errors.js"
import type { CampaignId, EmpresaId } from "../ids.js"
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
