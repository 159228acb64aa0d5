import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../../errors.js"
import type { EmpresaId, ProgramId } from "../../ids.js"
import { inWindow, rolledUpByHour, seriesWithTotal, type Hourly } from "../periods.js"
import { Metrics } from "../service.js"
import type { LoyaltyCardMetrics, LoyaltyCardMetricsInput } from "./contracts.js"
import { traced } from "../../tracing.js"
import { topClients } from "./top-clients.js"

type CardCounts = Omit<
  LoyaltyCardMetrics,
  "period_days" | "program_id" | "program_name" | "stamps_by_period" | "top_clients"
>

/**
 * `get_loyalty_card_metrics` (spec 2.2, 4.2.1): windowed facts come from the stamp log and the
 * cards' own instants (created_at, completed_at); current-state counts read the cards as they are.
 */
export class LoyaltyCardMetricsReport extends Effect.Service<LoyaltyCardMetricsReport>()(
  "core/LoyaltyCardMetricsReport",
  {
    accessors: true,
    dependencies: [Metrics.Default],
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const metrics = yield* Metrics

      const programName = (empresaId: EmpresaId, programId: ProgramId) =>
        Effect.flatMap(
          sql<{
            name: string
          }>`SELECT name FROM loyalty_programs WHERE empresa_id = ${empresaId} AND id = ${programId}`,
          ([row]) =>
            row === undefined ? new NotFound({ resource: "Loyalty program", id: programId }) : Effect.succeed(row.name)
        )

      const get = traced("LoyaltyCardMetrics.get")(function* (empresaId: EmpresaId, input: LoyaltyCardMetricsInput) {
        const programId = input.program_id ?? null
        const name = programId === null ? null : yield* programName(empresaId, programId)
        const window = yield* metrics.window(empresaId, input.days)
        const ofProgram = programId === null ? sql`` : sql`AND program_id = ${programId}`
        // Cardholders of every program are the rows without one (migration 0022).
        const holdersOf = programId === null ? sql`program_id IS NULL` : sql`program_id = ${programId}`
        const within = inWindow(sql, window)
        const created = within(sql`created_at`)
        const completed = within(sql`completed_at`)
        const stamps: Hourly = {
          facts: (range) => sql`
            SELECT quantity AS stamps
            FROM loyalty_stamps WHERE empresa_id = ${empresaId} ${ofProgram} AND ${range(sql`created_at`)}`,
          rollup: (hours) => sql`
            SELECT stamps
            FROM loyalty_stamps_hourly WHERE empresa_id = ${empresaId} ${ofProgram} AND ${hours(sql`hour`)}`
        }

        // The tenant's cards in one pass (the active ones are read whatever the window, so the
        // windowed counts ride along). completion_rate follows the cohort issued in the window, so it
        // stays a ratio in 0..1 (the cards completed in the window may have been issued before it).
        const [counts] = yield* sql<CardCounts>`
        SELECT c.cards_active, c.cards_near_completion, c.avg_stamps_per_active_card, c.cards_issued,
               coalesce(round(c.issued_completed::numeric / nullif(c.cards_issued, 0), 4), 0) AS completion_rate,
               c.cards_completed, c.avg_days_to_complete,
               h.clients_with_card, greatest(t.clients - h.clients_with_card, 0) AS clients_without_card
        FROM
          (SELECT count(*) FILTER (WHERE status = 'active') AS cards_active,
                  count(*) FILTER (WHERE status = 'active' AND stamps = max_stamps - 1) AS cards_near_completion,
                  coalesce(round(avg(stamps) FILTER (WHERE status = 'active'), 2), 0) AS avg_stamps_per_active_card,
                  count(*) FILTER (WHERE ${created}) AS cards_issued,
                  count(*) FILTER (WHERE ${created} AND status <> 'active') AS issued_completed,
                  count(*) FILTER (WHERE ${completed}) AS cards_completed,
                  round(avg(extract(epoch FROM completed_at - created_at)::numeric / 86400) FILTER (WHERE ${completed}),
                        2) AS avg_days_to_complete
           FROM loyalty_cards WHERE empresa_id = ${empresaId} ${ofProgram}) c,
          (SELECT count(*) AS clients_with_card FROM loyalty_cardholders
           WHERE empresa_id = ${empresaId} AND ${holdersOf}) h,
          (SELECT coalesce(sum(clients), 0) AS clients FROM client_totals WHERE empresa_id = ${empresaId}) t`

        const { series } = yield* seriesWithTotal<LoyaltyCardMetrics["stamps_by_period"][number]>(sql, {
          window,
          groupBy: input.group_by,
          facts: (inPeriod) => sql`
          SELECT stamps, 0 AS completions FROM (${rolledUpByHour(sql, inPeriod, stamps)}) s
          UNION ALL
          SELECT 0, 1
          FROM loyalty_cards WHERE empresa_id = ${empresaId} ${ofProgram} AND ${inPeriod(sql`completed_at`)}`,
          measures: { stamps: "sum(stamps)", completions: "sum(completions)" },
          columns: "m.stamps AS stamps, m.completions AS completions"
        })

        const top = yield* topClients(sql, empresaId, programId, within)

        return {
          ...counts!,
          period_days: window.days,
          program_id: programId,
          program_name: name,
          stamps_by_period: series,
          top_clients: [...top]
        } satisfies LoyaltyCardMetrics
      })

      return sqlErrorsAsDefects({ get })
    })
  }
) {}
