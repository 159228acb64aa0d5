import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The users who signed up with a referral code, by that code: `GET /users/me` counts a user's
 * referrals on every call, and without it that count read every user of the platform (91 ms for
 * 100,000 users, the whole of the profile's time). Partial: most users were referred by no one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX users_pending_referral_idx ON users (pending_referral_code)
    WHERE pending_referral_code IS NOT NULL AND password_hash IS NOT NULL`
})
