import { mkdirSync } from "node:fs"
import pg from "pg"
import { pgbouncerBinary, startPgbouncer } from "../test/support/pgbouncer.js"
import { ROOT } from "./options.js"

/**
 * Where a run's data lives, as environment for each process: PGlite is a persistent embedded data
 * directory that the server and the baseline open in turn (it has one owner at a time, as in
 * production); PostgreSQL is a database both reach over the network.
 */
export interface Database {
  readonly name: "pglite" | "postgres" | "postgres+pgbouncer"
  readonly env: Record<string, string>
}

export const pglite = (): Database => {
  const dir = `${ROOT}bench/.data/pglite`
  mkdirSync(dir, { recursive: true })
  return { name: "pglite", env: { FIDELIS_DATA_DIR: dir } }
}

export const postgres = async (): Promise<Database | undefined> => {
  const url = new URL(process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/fidelis_bench")
  const name = url.pathname.slice(1)
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: "/postgres" }).toString() })
  try {
    await admin.connect()
  } catch {
    process.stdout.write(`PostgreSQL at ${url.host} is not reachable: skipped\n`)
    return undefined
  }
  const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
  if (!rowCount) await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return { name: "postgres", env: { DATABASE_URL: url.toString() } }
}

/** Pool size of `--pgbouncer`: the server's own pool size, so the pooler is never the bottleneck. */
const PGBOUNCER_POOL = 10

/**
 * `--pgbouncer`: the database through a PgBouncer of the run's own (transaction pooling), DATABASE_URL
 * the pooler and DATABASE_DIRECT_URL the server itself, as the README's deployment section says.
 */
export const throughPgbouncer = async (db: Database) => {
  const binary = await pgbouncerBinary()
  if (binary === undefined) throw new Error("--pgbouncer: pgbouncer is not installed (apt-get install pgbouncer)")
  const direct = db.env["DATABASE_URL"]!
  const pooler = await startPgbouncer(binary, direct, PGBOUNCER_POOL)
  const pooled: Database = {
    name: "postgres+pgbouncer",
    env: { DATABASE_URL: pooler.urlFor(direct), DATABASE_DIRECT_URL: direct }
  }
  return { db: pooled, stop: pooler.stop }
}
