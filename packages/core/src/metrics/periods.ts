import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import { z } from "zod"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"

/**
 * Shared by every analytic: the reporting window (`days` back from now) and its grouping, with
 * period boundaries in the empresa's own time zone (a "day" is a local calendar day).
 */

export const Days = z.coerce.number().int().min(1).max(365).default(30).describe("Window: the last N days, 1 to 365 (default 30)")
export const GroupBy = z.enum(["day", "week", "month"]).default("day").describe("Period of each series point: day, week or month")
export type GroupBy = z.infer<typeof GroupBy>

/**
 * The empresa's IANA time zone, from its settings. The empresa is the caller's own, so its absence
 * would be a bug, not a refusal the reports could document.
 */
export const timezoneOf = (empresaId: string) =>
  Empresas.get(empresaId).pipe(
    Effect.catchTag("NotFound", Effect.die),
    Effect.map((e) => settingsOf(e).timezone)
  )

export interface Window {
  readonly timezone: string
  readonly days: number
  /** Start of the window: local midnight `days - 1` days ago, as an instant (ISO). */
  readonly from: string
  /** End of the window: now (ISO). */
  readonly to: string
}

/**
 * The window `[local midnight (days - 1) days ago, now)`: "the last 7 days" includes today. Computed
 * by the database so it agrees with every `date_trunc` below.
 */
export const windowOf = (empresaId: string, days: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const timezone = yield* timezoneOf(empresaId)
    const [row] = yield* sql<{ from: string; to: string }>`
      SELECT (date_trunc('day', now() AT TIME ZONE ${timezone}) - make_interval(days => ${days - 1})) AT TIME ZONE ${timezone} AS "from",
             now() AS "to"`
    return { timezone, days, from: row!.from, to: row!.to } satisfies Window
  })

/** `date_trunc` of an instant column to its local period start (a local timestamp). */
export const periodStart = (sql: SqlClient.SqlClient, column: Statement.Fragment, groupBy: GroupBy, timezone: string) =>
  sql`date_trunc(${groupBy}, ${column} AT TIME ZONE ${timezone})`

/**
 * Every period of the window, oldest first, as `period` (local period start) — join facts to it
 * to zero-fill the periods without any.
 */
export const periodSeries = (sql: SqlClient.SqlClient, window: Window, groupBy: GroupBy) =>
  sql`SELECT generate_series(
        date_trunc(${groupBy}, ${window.from}::timestamptz AT TIME ZONE ${window.timezone}),
        date_trunc(${groupBy}, ${window.to}::timestamptz AT TIME ZONE ${window.timezone}),
        ('1 ' || ${groupBy})::interval
      ) AS period`

/** How a period is labelled on the wire: 2026-11-22 (day, week's Monday) or 2026-11 (month). */
export const periodLabel = (sql: SqlClient.SqlClient, column: Statement.Fragment, groupBy: GroupBy) =>
  groupBy === "month" ? sql`to_char(${column}, 'YYYY-MM')` : sql`to_char(${column}, 'YYYY-MM-DD')`

/** `column` falls inside the window `[from, to)`. */
export const withinWindow = (sql: SqlClient.SqlClient, column: Statement.Fragment, window: Window) =>
  sql`${column} >= ${window.from} AND ${column} < ${window.to}`
