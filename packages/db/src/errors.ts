import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

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

/** The name of the constraint a violation hit, to tell which rule said no. */
export const constraintOf = (error: SqlError): string => pgFields(error).constraint ?? ""

/**
 * Maps a unique violation to the domain's refusal for that constraint; other failures pass through.
 */
export const onUniqueViolation =
  <E2>(refusal: (constraint: string) => E2) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> =>
    Effect.catchIf(self, (error: E): error is E & SqlError => isUniqueViolation(error), (error) =>
      Effect.fail(refusal(constraintOf(error)))
    )

/** An infrastructure failure becomes a defect; the domain's refusals stay in the error channel. */
export const dieOnSqlError = <A, E, R>(self: Effect.Effect<A, E, R>) => {
  const defects = Effect.catchIf(self, (error: E): error is Extract<E, SqlError> => error instanceof SqlError, Effect.die)
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
 * A service's boundary (design.md section 5): its methods' infrastructure failures become
 * defects, so each error type lists only the refusals, classified inside the method
 * (`onUniqueViolation`). Generic methods lose their type parameters here: pipe those through
 * `dieOnSqlError` instead.
 */
export const sqlErrorsAsDefects = <S extends Record<string, unknown>>(service: S): SqlErrorsAsDefects<S> =>
  Object.fromEntries(
    Object.entries(service).map(([name, member]) => [
      name,
      typeof member === "function"
        ? (...args: ReadonlyArray<unknown>) => dieOnSqlError(member(...args) as Effect.Effect<unknown, unknown, unknown>)
        : Effect.isEffect(member)
          ? dieOnSqlError(member)
          : member
    ])
  ) as SqlErrorsAsDefects<S>
