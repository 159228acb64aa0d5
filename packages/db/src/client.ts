import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
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
 * never pays back on queries this size; a URL that sets its own `options` keeps them.
 */
const withoutJit = (url: string) => {
  const parsed = new URL(url)
  if (!parsed.searchParams.has("options")) parsed.searchParams.set("options", "-c jit=off")
  return parsed.toString()
}

const clientLayer = (config: DatabaseConfig) =>
  config.url !== undefined
    ? PgClient.layer({
        url: Redacted.make(withoutJit(config.url)),
        maxConnections: config.maxConnections ?? 10,
        applicationName: "fidelis",
        types
      })
    : Layer.unwrapScoped(
        Effect.map(startEmbedded(config.dataDir), ({ host, port }) =>
          PgClient.layer({
            host,
            port,
            username: "postgres",
            database: "postgres",
            maxConnections: 1,
            applicationName: "fidelis",
            types
          })
        )
      )

/** The SQL client for the configured database, migrated to the latest schema before first use. */
export const layer = (config: DatabaseConfig) =>
  Layer.effectDiscard(migrate).pipe(Layer.provideMerge(clientLayer(config)))
