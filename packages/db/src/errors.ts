import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Option, Runtime } from "effect"

/** Postgres SQLSTATE codes the domain turns into refusals; everything else stays a defect. */
const UNIQUE_VIOLATION = "23505"
const CHECK_VIOLATION = "23514"

const pgFields = (error: SqlError): { code?: string; constraint?: string } =>
  typeof error.cause === "object" && error.cause !== null ? (error.cause as { code?: string; constraint?: string }) : {}

const violation =
  (code: string) =>
  <E>(error: E): error is E & SqlError =>
    error instanceof SqlError && pgFields(error).code === code

export const isUniqueViolation = violation(UNIQUE_VIOLATION)
export const isCheckViolation = violation(CHECK_VIOLATION)

/**
 * Failures that say the database cannot be reached right now, not that the statement was wrong:
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash recovery, not accepting
 * connections yet), the socket errors of a refused or dropped connection, and node-postgres's own
 * messages for a lost connection and a pool that could not connect in time (they carry no code).
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123])$/
const UNAVAILABLE_SOCKET_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN"
])
const UNAVAILABLE_DRIVER_MESSAGES = new RegExp(
  "^(Connection terminated|timeout exceeded when trying to connect$|timeout expired$|" +
    "Client has encountered a connection error)"
)

const isConnectionFailure = (cause: unknown, depth = 0): boolean => {
  if (typeof cause !== "object" || cause === null || depth > 3) return false
  const { code, message } = cause as { code?: unknown; message?: unknown }
  if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true
  if (typeof message === "string" && UNAVAILABLE_DRIVER_MESSAGES.test(message)) return true
  return isConnectionFailure((cause as { cause?: unknown }).cause, depth + 1)
}

/** A statement that failed because the database is unreachable; retrying later may succeed. */
export const isUnavailable = (error: unknown): error is SqlError =>
  error instanceof SqlError && isConnectionFailure(error.cause)

/**
 * The failure a database layer's opening was refused with: it reaches a caller of the runtime as a
 * FiberFailure around the Cause. Undefined when the opening died rather than failed.
 */
export const openFailureOf = (error: unknown): unknown =>
  Runtime.isFiberFailure(error) ? Option.getOrUndefined(Cause.failureOption(error[Runtime.FiberFailureCauseId])) : error

/**
 * Why the database could not be opened, in the driver's words: the pool's "Failed to acquire
 * connection" alone says nothing; its causes say "connect ECONNREFUSED 127.0.0.1:5432" or
 * 'database "x" does not exist'.
 */
export const openFailureReason = (error: unknown): string => {
  const messages: Array<string> = []
  for (let cause = openFailureOf(error) ?? error, depth = 0; depth < 4; depth++) {
    const message = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : undefined
    if (message !== undefined && message !== "" && !messages.includes(message)) messages.push(message)
    if (typeof cause !== "object" || cause === null || !("cause" in cause)) break
    cause = cause.cause
  }
  return messages.length === 0 ? String(error) : messages.join(": ")
}

/** The name of the constraint a violation hit, to tell which rule said no. */
export const constraintOf = (error: SqlError): string => pgFields(error).constraint ?? ""

/**
 * Maps a unique violation to the domain's refusal for that constraint; other failures pass through.
 */
export const onUniqueViolation =
  <E2>(refusal: (constraint: string) => E2) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> =>
    Effect.catchIf(
      self,
      (error: E): error is E & SqlError => isUniqueViolation(error),
      (error) => Effect.fail(refusal(constraintOf(error)))
    )

/** An infrastructure failure becomes a defect; the domain's refusals stay in the error channel. */
export const dieOnSqlError = <A, E, R>(self: Effect.Effect<A, E, R>) => {
  const defects = Effect.catchIf(
    self,
    (error: E): error is Extract<E, SqlError> => error instanceof SqlError,
    Effect.die
  )
  // Exclude<E, Extract<E, SqlError>> is Exclude<E, SqlError>; the compiler cannot see it for a generic E.
  return defects as Effect.Effect<A, Exclude<E, SqlError>, R>
}

type SqlErrorsAsDefects<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
    ? (...args: P) => Effect.Effect<A, Exclude<E, SqlError>, R>
    : S[K] extends Effect.Effect<infer A, infer E, infer R>
      ? Effect.Effect<A, Exclude<E, SqlError>, R>
      : S[K]
}

/**
 * A service's boundary (docs/architecture.md, "Runtime and adapters"): its methods' infrastructure failures become
 * defects, so each error type lists only the refusals, classified inside the method
 * (`onUniqueViolation`). Generic methods lose their type parameters here: pipe those through
 * `dieOnSqlError` instead.
 */
export const sqlErrorsAsDefects = <S extends Record<string, unknown>>(service: S): SqlErrorsAsDefects<S> =>
  Object.fromEntries(
    Object.entries(service).map(([name, member]) => [
      name,
      typeof member === "function"
        ? (...args: ReadonlyArray<unknown>) =>
            dieOnSqlError(member(...args) as Effect.Effect<unknown, unknown, unknown>)
        : Effect.isEffect(member)
          ? dieOnSqlError(member)
          : member
    ])
  ) as SqlErrorsAsDefects<S>
