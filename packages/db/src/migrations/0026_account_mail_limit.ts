import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An account's links by creation time: each account email counts the ones made in the last hour
 * (docs/decisions.md "Account emails per address"), which read every link ever made without it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX account_tokens_user_created_idx ON account_tokens (user_id, created_at)`
})
