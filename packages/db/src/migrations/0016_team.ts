import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Team roles (spec 2.4; docs/decisions.md "Team roles"): who of the users staffs an empresa, and
 * as what. An invitation is the row itself: it may name a password-less user row (the invitee has
 * no account yet) and counts only once that user's email is verified.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE team_members (
      empresa_id  uuid NOT NULL REFERENCES empresas (id),
      user_id     uuid NOT NULL REFERENCES users (id),
      id          uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      role        text NOT NULL CHECK (role IN ('empresa_operator', 'empresa_manager', 'empresa_admin')),
      invited_by  uuid REFERENCES api_keys (id),
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, user_id)
    )`
  // A bearer request resolves the user's roles on every staff call.
  yield* sql`CREATE INDEX team_members_user_idx ON team_members (user_id)`
})
