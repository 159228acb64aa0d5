import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import type { EmpresaId } from "../ids.js"
import { traced } from "../tracing.js"

export interface Window {
  readonly timezone: string
  readonly days: number
  /** Start of the window: local midnight `days - 1` days ago, as an instant (ISO). */
  readonly from: string
  /** End of the window: now (ISO). */
  readonly to: string
}

/** The window as every response echoes it, so a reader knows exactly what was counted. */
export const echoOf = (window: Window) => ({
  period_days: window.days,
  from: window.from,
  to: window.to,
  timezone: window.timezone
})

/**
 * What every analytic starts from: its reporting window, with period boundaries in the empresa's
 * own time zone (a "day" is a local calendar day).
 */
export class Metrics extends Effect.Service<Metrics>()("core/Metrics", {
  dependencies: [Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const empresas = yield* Empresas

    /**
     * The window `[local midnight (days - 1) days ago, now)`: "the last 7 days" includes today.
     * Computed by the database so it agrees with every `date_trunc` of the reports. The empresa is
     * the caller's own, so its absence would be a bug, not a refusal the reports could document.
     */
    const window = traced("Metrics.window")(function* (empresaId: EmpresaId, days: number) {
      const { timezone } = settingsOf(yield* empresas.get(empresaId).pipe(Effect.catchTag("NotFound", Effect.die)))
      const [row] = yield* sql<{ from: string; to: string }>`
        SELECT (date_trunc('day', now() AT TIME ZONE ${timezone}) - make_interval(days => ${days - 1}))
                 AT TIME ZONE ${timezone} AS "from",
               now() AS "to"`
      return { timezone, days, from: row!.from, to: row!.to } satisfies Window
    })

    return sqlErrorsAsDefects({ window })
  })
}) {}
