import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * End-user API, stores, wallets, timeline and referral codes (issue 14). A store IS an empresa: its
 * public profile lives on the empresa row (time zone and logo stay in `settings`, where the
 * surveys and metrics already read them).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // `business_hours`: weekday name -> {open, close} as HH:MM; an absent day is closed.
  yield* sql`
    ALTER TABLE empresas
      ADD COLUMN description     text CHECK (length(description) <= 2000),
      ADD COLUMN category        text CHECK (length(category) <= 100),
      ADD COLUMN address         text CHECK (length(address) <= 500),
      ADD COLUMN phone           text CHECK (length(phone) <= 30),
      ADD COLUMN instagram       text CHECK (length(instagram) <= 100),
      ADD COLUMN business_hours  jsonb NOT NULL DEFAULT '{}'::jsonb`
  yield* sql`CREATE INDEX empresas_name_idx ON empresas (lower(name), id)`

  // A user's pending referral (the code given at registration) completes once, at one store: the
  // conditional update of this column is what makes "once" hold across stores and parallel credits.
  yield* sql`ALTER TABLE users ADD COLUMN referral_completed_at timestamptz`

  // The user's clients (wallets, the cross-store timeline): clients are keyed by empresa first.
  yield* sql`CREATE INDEX clients_user_idx ON clients (user_id)`
})
