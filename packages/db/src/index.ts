export * as Database from "./client.js"
export type { DatabaseConfig } from "./client.js"
export { EmbeddedDatabaseBusy, MEMORY, openPglite } from "./embedded.js"
export { constraintOf, dieOnSqlError, isCheckViolation, isUniqueViolation, onUniqueViolation, sqlErrorsAsDefects } from "./errors.js"
