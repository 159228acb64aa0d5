export { ApiKeys } from "./auth/service.js"
export { Empresas } from "./empresas/service.js"
export { Quests } from "./quests/service.js"
export { LOCAL_ADMIN, type Credentials, type Principal } from "./auth/principal.js"
export { Config, configFromEnv, type CoreConfig } from "./config.js"
export {
  createRequestContext,
  requestContextFromHeaders,
  type RequestContext,
  type RequestContextInit
} from "./context.js"
export * from "./errors.js"
export * from "./ids.js"
export { SCOPE_ERRORS, type ProcedureMeta, type Scope } from "./meta.js"
export { DEFAULT_MAX_BODY_BYTES, MAX_BATCH_CALLS, readBody, withBodyLimit } from "./limits.js"
export { INTERNAL_MESSAGE, problemOf, validationError, type Problem } from "./problem.js"
export { appRouter, internalApiRouter, publicApiRouter, type AppRouter } from "./router.js"
export {
  catalogueOf,
  createAppCaller,
  procedureAt,
  type AppCaller,
  type ClientCallOptions,
  type ClientProcedure,
  type ProcedureEntry,
  type ProcedurePath
} from "./catalogue.js"
export { IDEMPOTENCY_KEY, idempotencyKeyDescription } from "./idempotency/key.js"
export {
  IMPORT_BATCH_MAX,
  IMPORT_COLUMNS,
  type ImportClientRow,
  type ImportClientsResult,
  type ImportRowResult
} from "./clients/contracts.js"
export { coreLayer, makeRuntime, type CoreRuntime, type CoreServices } from "./runtime.js"
export { admit, createCallerFactory } from "./trpc.js"
export { databaseReady, seedDemoIfEmpty } from "./demo.js"
export { runEffect } from "./trpc.js"
export { sweepExpired } from "./maintenance.js"
export { log, type Level } from "./log.js"
