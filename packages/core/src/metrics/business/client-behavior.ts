import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../../errors.js"
import type { EmpresaId } from "../../ids.js"
import { inWindow } from "../periods.js"
import { echoOf, Metrics } from "../service.js"
import type { ClientBehavior, ClientBehaviorInput } from "./contracts.js"
import { traced } from "../../tracing.js"

type Facts = Omit<ClientBehavior, "period_days" | "from" | "to" | "timezone">

/**
 * `get_client_behavior`: one client's points, coupons, referrals and stamp cards over a window,
 * in one statement; every fact is read through an index that leads with (empresa_id, client_id).
 */
export class ClientBehaviorReport extends Effect.Service<ClientBehaviorReport>()("core/ClientBehaviorReport", {
  accessors: true,
  dependencies: [Metrics.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics

    const get = traced("ClientBehavior.get")(function* (empresaId: EmpresaId, input: ClientBehaviorInput) {
      const window = yield* metrics.window(empresaId, input.days)
      const within = inWindow(sql, window)
      const created = within(sql`created_at`)
      const ofClient = sql`empresa_id = ${empresaId} AND client_id = ${input.client_id}`

      // Activity is the timeline: every action writes its event, points movements included.
      const [facts] = yield* sql<Facts>`
        SELECT c.id AS client_id, c.nome, c.created_at AS client_since,
               (SELECT max(created_at) FROM activity_events WHERE ${ofClient}) AS last_activity_at,
               v.visits,
               coalesce(round(l.earned::numeric / nullif(v.visits, 0), 2), 0) AS avg_points_per_visit,
               json_build_object('earned', l.earned, 'spent', l.spent, 'refunded', l.refunded, 'expired', l.expired,
                                 'balance', c.balance, 'total_earned', c.total_earned,
                                 'total_spent', c.total_spent) AS points,
               json_build_object('generated', cp.generated, 'used', cp.used, 'active', cp.active) AS coupons,
               json_build_object('made', rf.made, 'completed', rf.completed) AS referrals,
               json_build_object('stamps', st.stamps, 'cards_completed', k.completed, 'open_cards', k.open,
                                 'rewards_to_claim', k.to_claim) AS loyalty
        FROM clients c,
          (SELECT count(DISTINCT (created_at AT TIME ZONE ${window.timezone})::date) AS visits
           FROM activity_events WHERE ${ofClient} AND ${created}) v,
          (SELECT coalesce(sum(points) FILTER (WHERE kind = 'credit'), 0) AS earned,
                  coalesce(-sum(points) FILTER (WHERE kind = 'spend'), 0) AS spent,
                  coalesce(sum(points) FILTER (WHERE kind = 'refund'), 0) AS refunded,
                  coalesce(-sum(points) FILTER (WHERE kind = 'expire'), 0) AS expired
           FROM points_ledger WHERE ${ofClient} AND ${created}) l,
          (SELECT count(*) FILTER (WHERE ${created}) AS generated,
                  count(*) FILTER (WHERE ${within(sql`used_at`)}) AS used,
                  count(*) FILTER (WHERE status = 'active' AND expires_at > ${window.to}) AS active
           FROM coupons WHERE ${ofClient}) cp,
          (SELECT count(*) FILTER (WHERE ${created}) AS made,
                  count(*) FILTER (WHERE ${within(sql`completed_at`)}) AS completed
           FROM referrals WHERE empresa_id = ${empresaId} AND referrer_client_id = ${input.client_id}) rf,
          (SELECT coalesce(sum(quantity), 0) AS stamps FROM loyalty_stamps WHERE ${ofClient} AND ${created}) st,
          (SELECT count(*) FILTER (WHERE ${within(sql`completed_at`)}) AS completed,
                  count(*) FILTER (WHERE status = 'active') AS open,
                  count(*) FILTER (WHERE status = 'completed') AS to_claim
           FROM loyalty_cards WHERE ${ofClient}) k
        WHERE c.empresa_id = ${empresaId} AND c.id = ${input.client_id}`
      if (facts === undefined) return yield* new NotFound({ resource: "Client", id: input.client_id })
      return { ...facts, ...echoOf(window) } satisfies ClientBehavior
    })

    return sqlErrorsAsDefects({ get })
  })
}) {}
