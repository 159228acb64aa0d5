import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ClientId, EmpresaId, UserId } from "../ids.js"

export interface UserClient {
  readonly id: ClientId
  readonly balance: number
}

/**
 * The user's client record at one store, read through `user_clients` so it exists only once the
 * email is verified (docs/decisions.md "Account linking"); undefined when the user has none there.
 */
export const userClientAt = (userId: UserId, empresaId: EmpresaId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<UserClient>`SELECT id, balance FROM user_clients WHERE empresa_id = ${empresaId} AND user_id = ${userId}`
  ).pipe(Effect.map(([row]) => row))
