import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import type { EmpresaId } from "../../ids.js"
import { inWindow, rolledUpByHour, type Hourly } from "../periods.js"
import { echoOf, Metrics } from "../service.js"
import type { MetricsOverview, MetricsOverviewInput } from "./contracts.js"
import { traced } from "../../tracing.js"

/**
 * When a coupon or redemption left its open state, or will leave it (its deadline): the expression
 * of the `*_closing_idx` indexes (migration 0009), repeated verbatim so the planner matches it.
 */
const COUPON_CLOSING = "(CASE status WHEN 'used' THEN used_at WHEN 'cancelled' THEN cancelled_at ELSE expires_at END)"
const REDEMPTION_CLOSING =
  "(CASE status WHEN 'validated' THEN validated_at WHEN 'cancelled' THEN cancelled_at ELSE expires_at END)"

type Facts = Pick<MetricsOverview, "clients" | "points" | "coupons" | "redemptions">

/**
 * `get_metrics_overview`: one statement of single-row aggregates, each over one index range of
 * the window (or, for current state, of "after now"), never a per-row query.
 */
export class MetricsOverviewReport extends Effect.Service<MetricsOverviewReport>()("core/MetricsOverviewReport", {
  accessors: true,
  dependencies: [Metrics.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const couponClosing = sql.literal(COUPON_CLOSING)
    const redemptionClosing = sql.literal(REDEMPTION_CLOSING)

    const get = traced("MetricsOverview.get")(function* (empresaId: EmpresaId, input: MetricsOverviewInput) {
      const window = yield* metrics.window(empresaId, input.days)
      const within = inWindow(sql, window)
      const created = within(sql`created_at`)
      // The points of each kind: a year is about 2M entries for a large tenant, 9,000 hours.
      const ledger: Hourly = {
        facts: (range) => sql`
          SELECT points * (kind = 'credit')::int AS credit, points * (kind = 'spend')::int AS spend,
                 points * (kind = 'refund')::int AS refund, points * (kind = 'expire')::int AS expire,
                 points * (kind = 'adjust')::int AS adjust
          FROM points_ledger WHERE empresa_id = ${empresaId} AND ${range(sql`created_at`)}`,
        rollup: (hours) => sql`
          SELECT credit, spend, refund, expire, adjust
          FROM points_ledger_hourly WHERE empresa_id = ${empresaId} AND ${hours(sql`hour`)}`
      }

      // Clients who joined in the window.
      const joined: Hourly = {
        facts: (range) =>
          sql`SELECT 1 AS created FROM clients WHERE empresa_id = ${empresaId} AND ${range(sql`created_at`)}`,
        rollup: (hours) => sql`
          SELECT created FROM clients_hourly WHERE empresa_id = ${empresaId} AND ${hours(sql`hour`)}`
      }

      // Active clients: those with a timeline event in the window (every action writes one,
      // points movements included), read from each client's latest event (migration 0011). The
      // window ends now, so no upper bound: a client whose latest event came after `window.to`
      // was read may still have been active inside it. A coupon or redemption still open after
      // its deadline counts as expired, as reads report it.
      const [facts] = yield* sql<Facts>`
        SELECT json_build_object('total', c.total, 'new', n.new, 'active', a.active) AS clients,
               json_build_object('issued', l.issued, 'spent', l.spent, 'refunded', l.refunded, 'expired', l.expired,
                                 'adjusted', l.adjusted, 'outstanding', c.outstanding) AS points,
               json_build_object('generated', cg.generated, 'used', cc.used, 'expired', cc.expired,
                                 'cancelled', cc.cancelled, 'active', co.active,
                                 'valor_generated', cg.valor, 'valor_used', cc.valor_used) AS coupons,
               json_build_object('created', rm.created, 'validated', rc.validated, 'cancelled', rc.cancelled,
                                 'expired', rc.expired, 'pending', ro.pending,
                                 'points_spent', rm.points_spent) AS redemptions
        FROM
          (SELECT coalesce(sum(clients), 0) AS total, coalesce(sum(outstanding), 0) AS outstanding
           FROM client_totals WHERE empresa_id = ${empresaId}) c,
          (SELECT coalesce(sum(created), 0) AS new FROM (${rolledUpByHour(sql, within, joined)}) j) n,
          (SELECT count(*) AS active
           FROM client_activity WHERE empresa_id = ${empresaId} AND last_active_at >= ${window.from}) a,
          (SELECT coalesce(sum(credit), 0) AS issued, coalesce(-sum(spend), 0) AS spent,
                  coalesce(sum(refund), 0) AS refunded, coalesce(-sum(expire), 0) AS expired,
                  coalesce(sum(adjust), 0) AS adjusted
           FROM (${rolledUpByHour(sql, within, ledger)}) e) l,
          (SELECT count(*) AS generated, coalesce(sum(valor), 0) AS valor
           FROM coupons WHERE empresa_id = ${empresaId} AND ${created}) cg,
          (SELECT count(*) FILTER (WHERE status = 'used') AS used,
                  coalesce(sum(valor) FILTER (WHERE status = 'used'), 0) AS valor_used,
                  count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
                  count(*) FILTER (WHERE status IN ('active', 'expired')) AS expired
           FROM coupons WHERE empresa_id = ${empresaId} AND ${within(couponClosing)}) cc,
          (SELECT count(*) AS active FROM coupons
           WHERE empresa_id = ${empresaId} AND ${couponClosing} > ${window.to} AND status = 'active') co,
          (SELECT count(*) AS created,
                  coalesce(sum(points_spent) FILTER (WHERE status <> 'cancelled'), 0) AS points_spent
           FROM redemptions WHERE empresa_id = ${empresaId} AND ${created}) rm,
          (SELECT count(*) FILTER (WHERE status = 'validated') AS validated,
                  count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
                  count(*) FILTER (WHERE status IN ('pending', 'expired')) AS expired
           FROM redemptions WHERE empresa_id = ${empresaId} AND ${within(redemptionClosing)}) rc,
          (SELECT count(*) AS pending FROM redemptions
           WHERE empresa_id = ${empresaId} AND ${redemptionClosing} > ${window.to} AND status = 'pending') ro`
      return {
        ...echoOf(window),
        ...facts!
      } satisfies MetricsOverview
    })

    return sqlErrorsAsDefects({ get })
  })
}) {}
