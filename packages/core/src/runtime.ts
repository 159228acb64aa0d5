import type { SqlClient } from "@effect/sql"
import { Database } from "@fidelis/db"
import { Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { behindPooler, Config, type CoreConfig } from "./config.js"
import { Idempotency } from "./idempotency.js"
import { jsonLines } from "./log.js"
import { RateLimiter } from "./rate-limiter.js"
import { tracingLayer } from "./tracing.js"
import * as accounts from "./accounts/index.js"
import * as auth from "./auth/index.js"
import * as cart from "./cart/index.js"
import * as clients from "./clients/index.js"
import * as coupons from "./coupons/index.js"
import * as email from "./email/index.js"
import * as empresas from "./empresas/index.js"
import * as jobs from "./jobs/index.js"
import * as loyalty from "./loyalty/index.js"
import * as metrics from "./metrics/index.js"
import * as nfce from "./nfce/index.js"
import * as points from "./points/index.js"
import * as products from "./products/index.js"
import * as quests from "./quests/index.js"
import * as redemptions from "./redemptions/index.js"
import * as referrals from "./referrals/index.js"
import * as rewards from "./rewards/index.js"
import * as stores from "./stores/index.js"
import * as surveys from "./surveys/index.js"
import * as team from "./team/index.js"
import * as timeline from "./timeline/index.js"
import * as wallets from "./wallets/index.js"

/** What the kernel itself runs on: the budgets and the idempotent writes' records. */
const kernelLayer = Layer.mergeAll(RateLimiter.Default, Idempotency.Default)

/** Every domain service; each area contributes its own layer. */
const areasLayer = Layer.mergeAll(
  auth.layer,
  empresas.layer,
  clients.layer,
  points.layer,
  timeline.layer,
  products.layer,
  rewards.layer,
  coupons.layer,
  loyalty.layer,
  referrals.layer,
  quests.layer,
  surveys.layer,
  metrics.layer,
  jobs.layer,
  email.layer,
  accounts.layer,
  nfce.layer,
  stores.layer,
  wallets.layer,
  team.layer,
  redemptions.layer,
  cart.layer
)

const domainLayer = Layer.merge(kernelLayer, areasLayer)

declare module "./services.js" {
  interface ServiceRegistry {
    readonly core: Config | SqlClient.SqlClient | Layer.Layer.Success<typeof domainLayer>
  }
}

export interface RuntimeOptions {
  /** Log level for core's structured logs; `None` silences them (the CLI). */
  readonly logLevel?: LogLevel.LogLevel
}

/** The whole core, wired once: database (with migrations), then the domain services on top. */
export const coreLayer = (config: CoreConfig, options: RuntimeOptions = {}) => {
  const infra = Layer.mergeAll(
    Config.layer(config),
    Database.layer({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      template: config.embeddedTemplate,
      pooled: behindPooler(config)
    })
  )
  // Merged (not just provided) so the runtime's own fibers log the same way as layer construction.
  const logging = Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, jsonLines),
    Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info),
    tracingLayer(config.tracing)
  )
  return domainLayer.pipe(Layer.provideMerge(infra), Layer.provideMerge(logging))
}

/** Built once at startup and disposed on shutdown; never per request (docs/architecture.md, "Runtime and adapters"). */
export const makeRuntime = (config: CoreConfig, options: RuntimeOptions = {}) =>
  ManagedRuntime.make(coreLayer(config, options))
