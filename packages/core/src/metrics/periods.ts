import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { GroupBy } from "./contracts.js"
import type { Window } from "./service.js"

/** The SQL every analytic shares to place its facts in the window and its local calendar periods. */

/**
 * A predicate on an instant column: it falls inside a range `[starts, ends)` (the window, or one
 * of its periods), whose bounds it carries.
 */
export interface Within {
  (column: Statement.Fragment): Statement.Fragment
  readonly starts: Statement.Fragment
  readonly ends: Statement.Fragment
}

const range = (sql: SqlClient.SqlClient, starts: Statement.Fragment, ends: Statement.Fragment): Within =>
  Object.assign((column: Statement.Fragment) => sql`${column} >= ${starts} AND ${column} < ${ends}`, { starts, ends })

/** A column falls inside the window `[from, to)`: the (empresa_id, column) indexes serve it. */
export const inWindow = (sql: SqlClient.SqlClient, window: Window): Within =>
  range(sql, sql`${window.from}::timestamptz`, sql`${window.to}::timestamptz`)

/** The facts of a range, read from an hourly rollup where it can be. */
export interface Hourly {
  /** The facts themselves, in a range. */
  readonly facts: (within: Within) => Statement.Fragment
  /**
   * The rollup's rows, one per UTC hour (`hour`, its start), in a range of whole hours, with the
   * same columns as `facts`, each the sum of its hour's facts.
   */
  readonly rollup: (hours: Within) => Statement.Fragment
}

/**
 * The facts of a range as rows to sum: the whole UTC hours inside it come from the rollup, the
 * partial hours at its edges (none when a bound falls on the hour, as local midnights do in every
 * whole-hour time zone; the current hour at the window's end) from the facts. The rollup is kept in
 * the facts' own transactions (migration 0019), so both are read from one snapshot and every sum
 * is exactly the facts'.
 */
export const rolledUpByHour = (sql: SqlClient.SqlClient, within: Within, hourly: Hourly) => {
  // The first whole hour (the start rounded up; timestamptz counts microseconds) and the end of
  // the last one, never before the first.
  const first = sql`date_trunc('hour', ${within.starts} + interval '1 hour' - interval '1 microsecond', 'UTC')`
  const last = sql`greatest(date_trunc('hour', ${within.ends}, 'UTC'), ${first})`
  return sql`
    ${hourly.facts(range(sql, within.starts, sql`least(${first}, ${within.ends})`))}
    UNION ALL
    ${hourly.rollup(range(sql, first, last))}
    UNION ALL
    ${hourly.facts(range(sql, last, within.ends))}`
}

/**
 * Every period of the window, oldest first: `period` (its local start) and the instants `starts`
 * and `ends` it covers, cut by the window at either end.
 */
const periodsOf = (sql: SqlClient.SqlClient, window: Window, groupBy: GroupBy) => {
  const local = (instant: Statement.Fragment) => sql`date_trunc(${groupBy}, ${instant} AT TIME ZONE ${window.timezone})`
  const step = sql`('1 ' || ${groupBy})::interval`
  return sql`
    SELECT p.period,
           greatest(p.period AT TIME ZONE ${window.timezone}, ${window.from}::timestamptz) AS starts,
           least((p.period + ${step}) AT TIME ZONE ${window.timezone}, ${window.to}::timestamptz) AS ends
    FROM generate_series(${local(sql`${window.from}::timestamptz`)}, ${local(sql`${window.to}::timestamptz`)},
                         ${step}) AS p(period)`
}

/** How a period is labelled on the wire: 2026-11-22 (day, week's Monday) or 2026-11 (month). */
const periodLabel = (sql: SqlClient.SqlClient, column: Statement.Fragment, groupBy: GroupBy) =>
  groupBy === "month" ? sql`to_char(${column}, 'YYYY-MM')` : sql`to_char(${column}, 'YYYY-MM-DD')`

export interface Rollup {
  readonly window: Window
  readonly groupBy: GroupBy
  /** The facts that happened `within` a range, with what `measures` read. */
  readonly facts: (within: Within) => Statement.Fragment
  /**
   * Additive aggregates over the facts (counts and sums), by alias: the window's total is the sum
   * of its periods'. Constant SQL only, never input.
   */
  readonly measures: Readonly<Record<string, string>>
  /** The output columns, computed from the measures as `m.<alias>` (0 for a period without facts). */
  readonly columns: string
}

/**
 * A series, oldest first, and its window total. Each period aggregates its own facts, read by the
 * range of its bounds (an index range scan per period): no per-row time zone arithmetic, and no
 * sort or hash of the window's rows, which the planner, unable to tell how few local periods there
 * are, would size for one group per fact. The total sums the periods, so every derived figure (an
 * average, a rate) is computed the same way for a period and for the window.
 */
export const seriesWithTotal = <Row extends object>(sql: SqlClient.SqlClient, rollup: Rollup) => {
  const aliases = Object.keys(rollup.measures)
  const list = (f: (alias: string) => string) => sql.literal(aliases.map(f).join(", "))
  const columns = sql.literal(rollup.columns)
  const inPeriod = range(sql, sql`p.starts`, sql`p.ends`)
  return sql<Row & { readonly period: string | null }>`
    WITH filled AS (
      SELECT p.period, ${list((alias) => `COALESCE(a.${alias}, 0) AS ${alias}`)}
      FROM (${periodsOf(sql, rollup.window, rollup.groupBy)}) p,
           LATERAL (SELECT ${list((alias) => `${rollup.measures[alias]} AS ${alias}`)}
                    FROM (${rollup.facts(inPeriod)}) f) a
    )
    SELECT NULL AS period, ${columns}
    FROM (SELECT ${list((alias) => `sum(${alias}) AS ${alias}`)} FROM filled) m
    UNION ALL
    SELECT ${periodLabel(sql, sql`m.period`, rollup.groupBy)}, ${columns}
    FROM filled m
    ORDER BY period NULLS FIRST`.pipe(
    // The first row is the total (`period` null); the series' labels are never null.
    Effect.map(([total, ...series]) => ({
      total: total!,
      series: series.map((row) => ({ ...row, period: row.period! }))
    }))
  )
}
