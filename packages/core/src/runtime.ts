import type { SqlClient } from "@effect/sql"
import { Database } from "@fidelis/db"
import { Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { ApiKeys } from "./auth/keys.js"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Clients } from "./clients/service.js"
import { Config, type CoreConfig } from "./config.js"
import { Empresas } from "./empresas/service.js"
import { Idempotency } from "./idempotency/service.js"
import { Points } from "./points/service.js"

/** Every service a procedure's program may use. */
export type CoreServices =
  | Config
  | SqlClient.SqlClient
  | ApiKeys
  | RateLimiter
  | Empresas
  | Clients
  | Points
  | Idempotency

export interface RuntimeOptions {
  /** Log level for core's structured logs; `None` silences them (the CLI). */
  readonly logLevel?: LogLevel.LogLevel
}

/** The whole core, wired once: database (with migrations), then the domain services on top. */
export const coreLayer = (config: CoreConfig, options: RuntimeOptions = {}) => {
  const infra = Layer.mergeAll(
    Config.layer(config),
    Database.layer({ url: config.databaseUrl, dataDir: config.dataDir })
  )
  const services = Layer.mergeAll(
    ApiKeys.Default,
    RateLimiter.Default,
    Empresas.Default,
    Clients.Default,
    Points.Default,
    Idempotency.Default
  )
  // Merged (not just provided) so the runtime's own fibers log the same way as layer construction.
  const logging = Layer.merge(Logger.json, Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info))
  return services.pipe(Layer.provideMerge(infra), Layer.provideMerge(logging))
}

/** Built once at startup and disposed on shutdown; never per request (design.md section 5). */
export const makeRuntime = (config: CoreConfig, options: RuntimeOptions = {}) =>
  ManagedRuntime.make(coreLayer(config, options))

export type CoreRuntime = ManagedRuntime.ManagedRuntime<CoreServices, unknown>
