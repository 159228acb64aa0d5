export { ApiKeys } from "./auth/service.js"
export { Empresas } from "./empresas/service.js"
export { Quests } from "./quests/service.js"
export { Surveys } from "./surveys/service.js"
export { Accounts } from "./accounts/service.js"
export { hashPassword } from "./accounts/passwords.js"
export { Nfce } from "./nfce/service.js"
export { Redemptions } from "./redemptions/service.js"
export {
  ActiveSurvey,
  ContactResult,
  SubmissionResult,
  type ActiveSurveyInput,
  type SaveContactInput,
  type SubmitResponseInput
} from "./surveys/contracts.js"
export { PHONE_RULE } from "./documents.js"
export { PASSWORD_LENGTH } from "./accounts/contracts.js"
export { LOCAL_ADMIN, type Credentials, type Principal } from "./principal.js"
export { Config, configFromEnv, projectRoot, publicUrlOf, resolveDataDir, type CoreConfig } from "./config.js"
export {
  createRequestContext,
  requestContextFromHeaders,
  type RequestContext,
  type RequestContextInit
} from "./context.js"
export * from "./errors.js"
export * from "./ids.js"
export { AREAS, END_USER_SCOPES, SCOPE_ERRORS, type IdempotencyMode, type ProcedureMeta, type Scope } from "./meta.js"
export { DEFAULT_MAX_BODY_BYTES, MAX_BATCH_CALLS, readBody, withBodyLimit } from "./limits.js"
export {
  INTERNAL_MESSAGE,
  malformedJson,
  problemOf,
  RATE_LIMIT_EXCEEDED,
  requestRefusal,
  RequestRefused,
  unsupportedMediaTypeMessage,
  validationError,
  type Problem,
  type ProblemBody,
  type RequestErrorCode
} from "./problem.js"
export { closest, editDistance } from "./closest.js"
export { appRouter, endUserApiRouter, internalApiRouter, publicApiRouter, type AppRouter } from "./router.js"
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
export { IDEMPOTENCY_KEY, idempotencyKeyDescription } from "./idempotency-key.js"
export {
  IMPORT_BATCH_MAX,
  IMPORT_COLUMNS,
  type ImportClientRow,
  type ImportClientsResult,
  type ImportRowResult
} from "./clients/contracts.js"
export { coreLayer, makeRuntime } from "./runtime.js"
export type { CoreRuntime, CoreServices } from "./services.js"
export { admit, admitFor, countCall, settleAdmission } from "./admission.js"
export { createCallerFactory, UNNAMED_REQUEST } from "./trpc.js"
export { databaseReady, seedDemoIfEmpty } from "./demo.js"
export { runEffect } from "./trpc.js"
export { sweepExpired } from "./maintenance.js"
export { mailTarget, startWorkers, type Workers, type WorkersOptions } from "./workers.js"
export { Outbox } from "./email/service.js"
export { escapeHtml } from "./email/render.js"
export { Jobs } from "./jobs/service.js"
export type { ResponseKind } from "./meta.js"
export { log, type Level } from "./log.js"
