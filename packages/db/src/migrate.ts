import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect, Schedule } from "effect"
import foundation from "./migrations/0001_foundation.js"

const table = "fidelis_migrations"

/** Forward-only migrations, in order; ids are never reused or edited once released. */
const loader = Migrator.fromRecord({
  "0001_foundation": foundation
})

/**
 * Runs pending migrations. The migrator holds an ACCESS EXCLUSIVE lock on its table for the whole
 * run, so concurrent starts serialize; the table itself is created up front (with a retry, since two
 * first starts can race on CREATE) because the migrator's own creation is not race-safe.
 */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
    migration_id integer PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    name text NOT NULL
  )`.pipe(Effect.retry(Schedule.recurs(3)))
  return yield* Migrator.make({})({ loader, table })
}).pipe(Effect.withSpan("db.migrate"))
