import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes for the engagement analytics. Referral activity counts a completion in the period it
 * happened, so completions are read by `completed_at`, which no other index leads with.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE INDEX referrals_completed_idx ON referrals (empresa_id, completed_at)
             WHERE completed_at IS NOT NULL`
})
