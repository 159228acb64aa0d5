import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sessions (docs/decisions.md "Access tokens die with their session"): one row per login, the
 * family its refresh tokens rotate in and the `sid` of its access tokens. Ending it (`ended_at`)
 * ends both at once, so a refresh token and an access token ask the same row whether they live;
 * `refresh_tokens.revoked_at`, which marked every token of a family one by one (and missed a
 * successor a concurrent refresh was inserting), gives way to it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE sessions (
      id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id     uuid NOT NULL REFERENCES users (id),
      created_at  timestamptz NOT NULL DEFAULT now(),
      ended_at    timestamptz
    )`
  // Ending every session of a user (a password reset, the proof of the email) finds the live ones.
  yield* sql`CREATE INDEX sessions_user_live_idx ON sessions (user_id) WHERE ended_at IS NULL`

  // Every family so far becomes a session: its refresh tokens keep working, and one revoked token
  // means the family was revoked (a revocation always took the whole family).
  yield* sql`
    INSERT INTO sessions (id, user_id, created_at, ended_at)
    SELECT family_id, (array_agg(user_id))[1], min(created_at),
           CASE WHEN bool_or(revoked_at IS NOT NULL) THEN max(revoked_at) END
    FROM refresh_tokens GROUP BY family_id`
  yield* sql`ALTER TABLE refresh_tokens DROP COLUMN revoked_at`
  yield* sql`
    ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_session_fkey
      FOREIGN KEY (family_id) REFERENCES sessions (id)`
})
