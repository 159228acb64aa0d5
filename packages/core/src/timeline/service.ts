import { SqlClient, type Statement } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { pageOf } from "../contracts.js"
import { NotFound } from "../errors.js"
import type { ClientId, EmpresaId } from "../ids.js"
import type { EventType, TimelineInput } from "./contracts.js"

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
    const forClient = Effect.fn("Timeline.forClient")(function* (empresaId: EmpresaId, input: TimelineInput) {
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
      const rows = yield* sql<Row>`
        SELECT a.id, a.type, a.title, a.description, a.points, a.metadata, a.created_at,
               e.id AS empresa_id, e.name AS empresa_name, e.settings->>'logo_url' AS logo_url,
               count(*) OVER ()::int AS total
        FROM activity_events a JOIN empresas e ON e.id = a.empresa_id
        WHERE ${sql.and(filters)}
        ORDER BY a.created_at DESC, a.id DESC
        LIMIT ${input.per_page} OFFSET ${(input.page - 1) * input.per_page}`
      const total = rows[0]?.total ?? (input.page > 1 ? yield* countAll(filters) : 0)
      return pageOf(
        rows.map(({ empresa_id, empresa_name, logo_url, total: _total, ...item }) => ({
          ...item,
          empresa: { id: empresa_id, name: empresa_name, logo_url }
        })),
        total,
        input.page,
        input.per_page
      )
    })

    /** Past the last page the window count is absent; the total still has to be right. */
    const countAll = (filters: ReadonlyArray<Statement.Fragment>) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM activity_events a WHERE ${sql.and(filters)}`.pipe(
        Effect.map((r) => r[0]?.n ?? 0)
      )

    return sqlErrorsAsDefects({ forClient })
  })
}) {}
