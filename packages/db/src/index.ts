export * as Database from "./client.js"
export type { DatabaseConfig } from "./client.js"
export { announceServer, EmbeddedDatabaseBusy, MEMORY, openPglite } from "./embedded.js"
export {
  constraintOf,
  dieOnSqlError,
  isCheckViolation,
  isUnavailable,
  isUniqueViolation,
  onUniqueViolation,
  openFailureOf,
  openFailureReason,
  sqlErrorsAsDefects
} from "./errors.js"
export { listen, LISTENER_APPLICATION, type Subscriber } from "./listen.js"
export { jsonb } from "./jsonb.js"
export { inTransaction } from "./transaction.js"
