import { SqlClient } from "@effect/sql"
import { jsonb } from "@fidelis/db"
import { Effect } from "effect"

/** The four timeline categories of spec section 6. */
export type EventType = "purchase" | "reward" | "referral" | "interaction"

export interface ActivityEvent {
  readonly empresaId: string
  readonly clientId: string
  readonly type: EventType
  readonly title: string
  readonly description?: string | undefined
  /** Signed: negative when points are spent. */
  readonly points?: number | undefined
  /** The spec's per-type fields (e.g. reward: reward_uid, product_name) plus the action's ids. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Appends a client's timeline event. Call it inside the transaction of the action it records, so
 * an action and its event exist together or not at all (design.md section 2).
 */
export const recordEvent = (event: ActivityEvent) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO activity_events (empresa_id, client_id, type, title, description, points, metadata)
      VALUES (${event.empresaId}, ${event.clientId}, ${event.type}, ${event.title}, ${event.description ?? null},
              ${event.points ?? 0}, ${jsonb(event.metadata ?? {})}::jsonb)`
  ).pipe(Effect.asVoid, Effect.withSpan("timeline.recordEvent", { attributes: { type: event.type } }))
