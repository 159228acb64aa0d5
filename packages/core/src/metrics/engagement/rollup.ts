import type { SqlClient, Statement } from "@effect/sql"
import type { GroupBy } from "../contracts.js"
import { periodLabel, periodSeries } from "../periods.js"
import type { Window } from "../service.js"

export interface Rollup {
  readonly window: Window
  readonly groupBy: GroupBy
  /** A query over the window's facts exposing `period` (from `periodStart`) and what `measures` read. */
  readonly facts: Statement.Fragment
  /**
   * Additive aggregates over the facts (counts and sums), by alias: the window's total is the sum
   * of its periods'. Constant SQL only, never input.
   */
  readonly measures: Readonly<Record<string, string>>
  /** The output columns, computed from the measures as `m.<alias>` (0 for a period without facts). */
  readonly columns: string
}

/** More periods than any window has (366 days + 1). */
const MAX_PERIODS = 400

/**
 * A series and its window total from one pass over the facts: they are aggregated per local
 * period, the periods without facts are zero-filled from the window's period series, and the total
 * sums the periods, so every derived figure (an average, a rate) is computed the same way for a
 * period and for the window. The first row is the total (`period` null); the series follows,
 * oldest first.
 *
 * The LIMIT never cuts anything: it tells the planner how few periods there are. Without it the
 * planner, which has no statistics for a truncated timestamp, expects one group per fact and
 * carries that estimate into every join after it; on a server with JIT enabled the inflated cost
 * makes it spend longer compiling the query than running it.
 */
export const seriesWithTotal = <Row extends object>(sql: SqlClient.SqlClient, rollup: Rollup) => {
  const aliases = Object.keys(rollup.measures)
  const list = (f: (alias: string) => string) => sql.literal(aliases.map(f).join(", "))
  const columns = sql.literal(rollup.columns)
  return sql<Row & { readonly period: string | null }>`
    WITH series AS (${periodSeries(sql, rollup.window, rollup.groupBy)}),
    per_period AS (
      SELECT period, ${list((alias) => `${rollup.measures[alias]} AS ${alias}`)}
      FROM (${rollup.facts}) f
      GROUP BY period
      LIMIT ${sql.literal(String(MAX_PERIODS))}
    ),
    filled AS (
      SELECT s.period, ${list((alias) => `COALESCE(p.${alias}, 0) AS ${alias}`)}
      FROM series s LEFT JOIN per_period p ON p.period = s.period
    )
    SELECT NULL AS period, ${columns}
    FROM (SELECT ${list((alias) => `sum(${alias}) AS ${alias}`)} FROM filled) m
    UNION ALL
    SELECT ${periodLabel(sql, sql`m.period`, rollup.groupBy)}, ${columns}
    FROM filled m
    ORDER BY period NULLS FIRST`
}

/** Splits `seriesWithTotal`'s rows; the period labels of the series are never null. */
export const totalAndSeries = <Row extends { readonly period: string | null }>(rows: ReadonlyArray<Row>) => {
  const [total, ...series] = rows
  return { total: total!, series: series.map((row) => ({ ...row, period: row.period! })) }
}
