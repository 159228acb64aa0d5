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
