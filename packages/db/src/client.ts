import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { startEmbedded } from "./embedded.js"
import { migrate } from "./migrate.js"

export interface DatabaseConfig {
  /** A real server (`postgres://…`); undefined selects the embedded PGlite. */
  readonly url: string | undefined
  /** The embedded database's directory, or `memory://`. */
  readonly dataDir: string
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
 * The embedded database's pool: one connection, all PGlite serves. Its queries are never
 * cancelled: sql-pg cancels an interrupted query (a client that hung up) by sending
 * `pg_cancel_backend` through the pool, which on the one busy connection waits 5 s for the very
 * query it cancels while every other request queues behind it. Without the backend's process id
 * it skips that; the statement runs to its end and an unfinished transaction rolls back.
 */
const embeddedPool = (host: string, port: number) => {
  const pool = new pg.Pool({
    host,
    port,
    user: "postgres",
    database: "postgres",
    max: 1,
    application_name: "fidelis",
    types
  })
  pool.on("connect", (client) => {
    Object.assign(client, { processID: undefined })
  })
  // An idle connection's error must not crash the process; the next query reports it.
  pool.on("error", () => undefined)
  return pool
}

const clientLayer = (config: DatabaseConfig) =>
  config.url !== undefined
    ? PgClient.layer({
        url: Redacted.make(config.pooled ? config.url : withoutJit(config.url)),
        maxConnections: config.maxConnections ?? 10,
        // An unreachable server (or a pool saturated that long) answers 503 in seconds instead of
        // holding the request for the operating system's connect timeout, minutes.
        connectTimeout: Duration.seconds(5),
        applicationName: "fidelis",
        types
      })
    : Layer.unwrapScoped(
        Effect.map(startEmbedded(config.dataDir), ({ host, port }) =>
          PgClient.layerFromPool({
            acquire: Effect.acquireRelease(
              Effect.sync(() => embeddedPool(host, port)),
              (pool) => Effect.promise(() => pool.end())
            )
          })
        )
      )

/** The SQL client for the configured database, migrated to the latest schema before first use. */
export const layer = (config: DatabaseConfig) =>
  Layer.effectDiscard(migrate).pipe(Layer.provideMerge(clientLayer(config)))
