import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A link that travels inside another link's email (the verification email's claim link) names that
 * link: it is no email of its own for the hourly limit (docs/decisions.md "Account emails per
 * address"), and a second delivery of the email finds it rather than making another.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE account_tokens ADD COLUMN sent_with uuid REFERENCES account_tokens (id) ON DELETE CASCADE`
  yield* sql`CREATE UNIQUE INDEX account_tokens_sent_with_idx ON account_tokens (sent_with)`
})
