import { SqlClient, type Statement } from "@effect/sql"
import { jsonb } from "@fidelis/db"
import { Effect } from "effect"
import type { ClientId, EmpresaId } from "../ids.js"
import type { EventType } from "./contracts.js"
import { span } from "../tracing.js"

export interface ActivityEvent {
  readonly empresaId: EmpresaId
  readonly clientId: ClientId
  readonly type: EventType
  readonly title: string
  readonly description?: string | undefined
  /** Signed: negative when points are spent. */
  readonly points?: number | undefined
  /** The spec's per-type fields (e.g. reward: reward_uid, product_name) plus the action's ids. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** A column of an event row: a value, or an SQL expression over the CTEs of the writing statement. */
type Column<A> = A | Statement.Fragment

/** The event as the columns of one row; `metadata` is a jsonb expression. */
export interface EventRow {
  readonly empresaId: Column<EmpresaId>
  readonly clientId: Column<string>
  readonly type: EventType
  readonly title: Column<string>
  readonly description: Column<string | null>
  readonly points: Column<number>
  readonly metadata: Statement.Fragment
}

/**
 * The one INSERT into the timeline. The hottest writes (a credit, a stamp) embed it in their own
 * statement as a CTE, reading the rows `from` names, so the action and its event cost one round
 * trip; everything else calls `recordEvent`.
 */
export const insertEvent = (sql: SqlClient.SqlClient, row: EventRow, from?: Statement.Fragment) =>
  sql`INSERT INTO activity_events (empresa_id, client_id, type, title, description, points, metadata)
      SELECT ${row.empresaId}, ${row.clientId}, ${row.type}, ${row.title}, ${row.description}, ${row.points},
             ${row.metadata}
      ${from === undefined ? sql`` : sql`FROM ${from}`}`

/**
 * Appends a client's timeline event. Call it inside the transaction of the action it records, so
 * an action and its event exist together or not at all (docs/architecture.md, "Storage").
 */
export const recordEvent = (event: ActivityEvent) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    insertEvent(sql, {
      empresaId: event.empresaId,
      clientId: event.clientId,
      type: event.type,
      title: event.title,
      description: event.description ?? null,
      points: event.points ?? 0,
      metadata: sql`${jsonb(event.metadata ?? {})}::jsonb`
    })
  ).pipe(Effect.asVoid, span("timeline.recordEvent", { attributes: { type: event.type } }))
