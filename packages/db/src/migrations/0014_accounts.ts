import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * End-user accounts (docs/architecture.md, "End users"; docs/decisions.md "End-user accounts"). `users` exists
 * since 0001 (a company's client with an email provisions a password-less row); an account is that
 * row once someone registers it. Its clients' balances show only once `email_verified_at` is set.
 *
 * Platform tables, like `jobs`: a user is global, not a tenant's.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    ALTER TABLE users
      ADD COLUMN email_verified_at      timestamptz,
      ADD COLUMN avatar_url             text,
      ADD COLUMN pending_referral_code  text,
      ADD COLUMN registered_at          timestamptz`

  // A user's clients whose balances the user may see: only once the account's email is verified,
  // so registering someone else's address shows nothing (docs/decisions.md "Account linking").
  yield* sql`
    CREATE VIEW user_clients AS
      SELECT c.* FROM clients c JOIN users u ON u.id = c.user_id WHERE u.email_verified_at IS NOT NULL`

  // Opaque refresh tokens, stored as SHA-256; one family per login, one live token per family.
  yield* sql`
    CREATE TABLE refresh_tokens (
      id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id      uuid NOT NULL REFERENCES users (id),
      family_id    uuid NOT NULL,
      token_hash   text NOT NULL UNIQUE,
      remember_me  boolean NOT NULL,
      expires_at   timestamptz NOT NULL,
      rotated_at   timestamptz,
      revoked_at   timestamptz,
      created_at   timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id)`
  yield* sql`CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id)`

  // Access-token signing keys when none is configured; `kid` names one in each token's header.
  yield* sql`
    CREATE TABLE signing_keys (
      kid         text PRIMARY KEY,
      secret      text NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      retired_at  timestamptz
    )`

  // Email-verification and password-reset links: each usable once (`used_at`).
  yield* sql`
    CREATE TABLE account_tokens (
      id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id     uuid NOT NULL REFERENCES users (id),
      purpose     text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
      email       text NOT NULL,
      expires_at  timestamptz NOT NULL,
      used_at     timestamptz,
      created_at  timestamptz NOT NULL DEFAULT now()
    )`

  // Failed logins per subject (`account:<email>` or `ip:<address>`), for the slow-down and lockout.
  yield* sql`
    CREATE TABLE login_throttle (
      subject          text PRIMARY KEY,
      failures         integer NOT NULL CHECK (failures >= 0),
      last_failure_at  timestamptz NOT NULL,
      locked_until     timestamptz
    )`
})
