import type { SqlClient } from "@effect/sql"
import { Database } from "@fidelis/db"
import { Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { AuthCache } from "./auth/cache.js"
import { ApiKeys } from "./auth/keys.js"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Clients } from "./clients/service.js"
import { Config, type CoreConfig } from "./config.js"
import { jsonLines } from "./log.js"
import { Empresas } from "./empresas/service.js"
import { Idempotency } from "./idempotency/service.js"
import { Points } from "./points/service.js"
import * as coupons from "./coupons/layer.js"
import * as loyalty from "./loyalty/layer.js"
import * as businessMetrics from "./metrics/business/layer.js"
import * as engagementMetrics from "./metrics/engagement/layer.js"
import * as products from "./products/layer.js"
import * as quests from "./quests/layer.js"
import * as referrals from "./referrals/layer.js"
import * as rewards from "./rewards/layer.js"
import { Timeline } from "./timeline/service.js"

/** Every domain service; each area contributes its own layer. */
const domainLayer = Layer.mergeAll(
  ApiKeys.Default,
  RateLimiter.Default,
  Empresas.Default,
  Clients.Default,
  Points.Default,
  Idempotency.Default,
  Timeline.Default,
  products.layer,
  rewards.layer,
  coupons.layer,
  loyalty.layer,
  referrals.layer,
  quests.layer,
  businessMetrics.layer,
  engagementMetrics.layer
)

/** Every service a procedure's program may use. */
export type CoreServices = Config | SqlClient.SqlClient | Layer.Layer.Success<typeof domainLayer>

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
  // Merged (not just provided) so the runtime's own fibers log the same way as layer construction.
  const logging = Layer.merge(Logger.replace(Logger.defaultLogger, jsonLines), Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info))
  return domainLayer.pipe(Layer.provide(AuthCache.Default), Layer.provideMerge(infra), Layer.provideMerge(logging))
}

/** Built once at startup and disposed on shutdown; never per request (design.md section 5). */
export const makeRuntime = (config: CoreConfig, options: RuntimeOptions = {}) =>
  ManagedRuntime.make(coreLayer(config, options))

export type CoreRuntime = ManagedRuntime.ManagedRuntime<CoreServices, unknown>
