import type { SqlClient, Statement } from "@effect/sql"
import type { GroupBy } from "./contracts.js"
import type { Window } from "./service.js"

/** The SQL every analytic shares to place its facts in the window's local calendar periods. */

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
