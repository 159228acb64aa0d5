import { SqlClient, type Statement } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { pageOf } from "../contracts.js"
import { NotFound } from "../errors.js"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import type { EventType, TimelineInput, UserTimelineInput } from "./contracts.js"
import { traced } from "../tracing.js"

/** The event writers every area records its changes with, in its own transaction. */
export { insertEvent, recordEvent, type ActivityEvent, type EventRow } from "./events.js"

interface Row {
  readonly id: string
  readonly type: EventType
  readonly title: string
  readonly description: string | null
  readonly points: number
  readonly metadata: Record<string, unknown>
  readonly created_at: string
  readonly empresa_id: EmpresaId
  readonly empresa_name: string
  readonly logo_url: string | null
  readonly total: number
}

export class Timeline extends Effect.Service<Timeline>()("core/Timeline", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** A client's events, newest first, filtered by category and time window. */
    const forClient = traced("Timeline.forClient")(function* (empresaId: EmpresaId, input: TimelineInput) {
      const [client] = yield* sql<{ id: ClientId }>`
        SELECT id FROM clients WHERE empresa_id = ${empresaId} AND id = ${input.client_id}`
      if (client === undefined) return yield* new NotFound({ resource: "Client", id: input.client_id })
      const filters: Array<Statement.Fragment> = [
        sql`a.empresa_id = ${empresaId}`,
        sql`a.client_id = ${input.client_id}`,
        ...(input.category ? [sql`a.type IN ${sql.in(input.category)}`] : []),
        ...(input.from ? [sql`a.created_at >= ${input.from}`] : []),
        ...(input.to ? [sql`a.created_at < ${input.to}`] : [])
      ]
      const { items, total } = yield* page(filters, input.page, input.per_page)
      return pageOf(items, total, input.page, input.per_page)
    })

    /**
     * The user's events across every store where the user is a verified client (`user_clients`),
     * newest first; each client's events come in index order (activity_events_client_idx).
     */
    const forUser = traced("Timeline.forUser")(function* (userId: UserId, input: UserTimelineInput) {
      const filters = [
        sql`(a.empresa_id, a.client_id) IN (SELECT c.empresa_id, c.id FROM user_clients c WHERE c.user_id = ${userId})`
      ]
      const { items, total } = yield* page(filters, input.page, input.limit)
      const pages = Math.ceil(total / input.limit)
      return {
        items,
        pagination: {
          page: input.page,
          limit: input.limit,
          total,
          total_pages: pages,
          has_next: input.page < pages,
          has_prev: input.page > 1
        }
      }
    })

    /** One page of events matching `filters`, newest first, each with its empresa, and their total. */
    const page = (filters: ReadonlyArray<Statement.Fragment>, pageNumber: number, perPage: number) =>
      Effect.gen(function* () {
        const rows = yield* sql<Row>`
          SELECT a.id, a.type, a.title, a.description, a.points, a.metadata, a.created_at,
                 e.id AS empresa_id, e.name AS empresa_name, e.settings->>'logo_url' AS logo_url,
                 count(*) OVER ()::int AS total
          FROM activity_events a JOIN empresas e ON e.id = a.empresa_id
          WHERE ${sql.and(filters)}
          ORDER BY a.created_at DESC, a.id DESC
          LIMIT ${perPage} OFFSET ${(pageNumber - 1) * perPage}`
        const total = rows[0]?.total ?? (pageNumber > 1 ? yield* countAll(filters) : 0)
        const items = rows.map(({ empresa_id, empresa_name, logo_url, total: _total, ...item }) => ({
          ...item,
          empresa: { id: empresa_id, name: empresa_name, logo_url }
        }))
        return { items, total }
      })

    /** Past the last page the window count is absent; the total still has to be right. */
    const countAll = (filters: ReadonlyArray<Statement.Fragment>) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM activity_events a WHERE ${sql.and(filters)}`.pipe(
        Effect.map((r) => r[0]?.n ?? 0)
      )

    return sqlErrorsAsDefects({ forClient, forUser })
  })
}) {}
