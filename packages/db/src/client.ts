import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import pg from "pg"
import { startEmbedded } from "./embedded.js"
import { migrate } from "./migrate.js"

export interface DatabaseConfig {
  /** A real server (`postgres://…`); undefined selects the embedded PGlite. */
  readonly url: string | undefined
  /** The embedded database's directory, or `memory://`. */
  readonly dataDir: string
  /** A migrated cluster (a PGlite `dumpDataDir` tarball) a `memory://` database starts from. */
  readonly template?: string | undefined
  /** Pool size for a real server. */
  readonly maxConnections?: number
  /**
   * `url` is a transaction pooler (PgBouncer): its connections carry no startup options, which
   * PgBouncer refuses (docs/decisions.md, "Behind PgBouncer").
   */
  readonly pooled?: boolean
}

const BIGINT = 20
const NUMERIC = 1700
const TIMESTAMPTZ = 1184

/**
 * Counts and money arrive as JS numbers (every value we store fits in 2^53) and instants as ISO
 * strings, which is what the wire contracts carry; nothing downstream converts again.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === BIGINT || oid === NUMERIC) return (value: string) => Number(value)
    if (oid === TIMESTAMPTZ) return (value: string) => new Date(value).toISOString()
    return pg.types.getTypeParser(oid, format)
  }) as pg.CustomTypesConfig["getTypeParser"]
}

/**
 * JIT compilation costs real Postgres hundreds of milliseconds on the analytics' first plans and
 * never pays back on queries this size; a URL that sets its own `options` keeps them. Behind a
 * pooler the pooler's own server connections turn it off (its `connect_query`).
 */
const withoutJit = (url: string) => {
  const parsed = new URL(url)
  if (!parsed.searchParams.has("options")) parsed.searchParams.set("options", "-c jit=off")
  return parsed.toString()
}

/**
 * A pool whose interrupted statements are never cancelled. @effect/sql-pg cancels a statement
 * whose request was interrupted (its client hung up) with `SELECT pg_cancel_backend(<pid>)` sent
 * through this same pool, waiting up to 5 s for a connection. When every connection is taken by
 * requests queued behind the interrupted transaction's row locks, none comes: the transaction sits
 * idle for those 5 s, holding its locks, and every request behind it waits (the bench's redemptions
 * stalled this way at the end of each pass). The abandoned cancel then stays queued in the pool and
 * later cancels whatever that backend runs by then, another request's statement; behind a pooler
 * the pid is not even a backend's. Without the backend's process id sql-pg skips all that: the
 * statement runs to its end and an unfinished transaction rolls back (docs/decisions.md, "Hung-up
 * requests and query cancellation").
 */
const uncancellingPool = (config: pg.PoolConfig) => {
  const pool = new pg.Pool({ application_name: "fidelis", types, ...config })
  pool.on("connect", (client) => {
    Object.assign(client, { processID: undefined })
  })
  // An idle connection's error must not crash the process; the next query reports it.
  pool.on("error", () => undefined)
  return pool
}

const poolLayer = (open: Effect.Effect<pg.Pool>) =>
  PgClient.layerFromPool({
    acquire: Effect.acquireRelease(open, (pool) => Effect.promise(() => pool.end()))
  })

const clientLayer = ({ url, pooled, maxConnections, dataDir, template }: DatabaseConfig) =>
  url !== undefined
    ? poolLayer(
        Effect.sync(() =>
          uncancellingPool({
            connectionString: pooled ? url : withoutJit(url),
            max: maxConnections ?? 10,
            // An unreachable server (or a pool saturated that long) answers 503 in seconds instead of
            // holding the request for the operating system's connect timeout, minutes.
            connectionTimeoutMillis: 5_000
          })
        )
      )
    : Layer.unwrapScoped(
        Effect.map(startEmbedded(dataDir, template), ({ host, port }) =>
          // The embedded database's pool: one connection, all PGlite serves.
          poolLayer(Effect.sync(() => uncancellingPool({ host, port, user: "postgres", database: "postgres", max: 1 })))
        )
      )

/** The SQL client for the configured database, migrated to the latest schema before first use. */
export const layer = (config: DatabaseConfig) =>
  Layer.effectDiscard(migrate).pipe(Layer.provideMerge(clientLayer(config)))
