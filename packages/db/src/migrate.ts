import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect, Schedule } from "effect"
import { MIGRATIONS } from "./migrations/index.js"

const table = "fidelis_migrations"

const FILE = /^(\d{4})_([a-z0-9_]+)$/

/**
 * Forward-only migrations: every `NNNN_name.ts` in ./migrations (as migrations/index.ts lists them),
 * in id order. A released migration is never edited; a change is a new file.
 */
const loader: Migrator.Loader = Effect.sync(() =>
  Object.entries(MIGRATIONS)
    .flatMap(([file, load]) => {
      const match = FILE.exec(file)
      return match === null ? [] : [[Number(match[1]), match[2]!, Effect.promise(load)] as const]
    })
    .toSorted(([a], [b]) => a - b)
)

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
  const applied = yield* Migrator.make({})({ loader, table })
  const [latest] = yield* sql<{ id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(table)}`
  // Which schema a process runs on, and what it changed, is the first thing an operator asks.
  yield* Effect.logInfo("database ready").pipe(
    Effect.annotateLogs({
      schema_version: latest?.id ?? 0,
      migrations_applied: applied.map(([id, name]) => `${id}_${name}`)
    })
  )
  return applied
}).pipe(Effect.withSpan("db.migrate"))
