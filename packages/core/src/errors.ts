import type { TRPC_ERROR_CODE_KEY } from "@trpc/server"
import { Data } from "effect"

/** One item of the spec's validation-error body (section 2.1). */
export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
}

/** Conflicting or malformed request envelope (e.g. both auth headers with different values). */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly message: string }> {}

/** Missing, malformed, unknown or revoked credential. */
export class Unauthenticated extends Data.TaggedError("Unauthenticated")<{ readonly message: string }> {}

/** Authenticated, but the plan, scope or role does not allow this. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {}

/** Absent, or owned by another tenant: the two are indistinguishable on purpose. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly resource: string; readonly id: string }> {
  override get message() {
    return `${this.resource} ${this.id} not found`
  }
}

/** A state or business rule refused the operation; `code` is stable for machines. */
export class Conflict extends Data.TaggedError("Conflict")<{ readonly code: string; readonly message: string }> {}

/** Input that passed the schema but breaks a rule only the domain can check. */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly issues: ReadonlyArray<ValidationIssue>
}> {
  override get message() {
    return this.issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")
  }
}

export class RateLimited extends Data.TaggedError("RateLimited")<{ readonly retryAfter: number }> {
  override get message() {
    return `Rate limit exceeded; retry in ${this.retryAfter} s`
  }
}

/** The database cannot be reached right now; the same request may succeed after `retryAfter` seconds. */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly retryAfter: number }> {
  override get message() {
    return "The service is temporarily unavailable; retry in a few seconds"
  }
}

export type DomainError =
  | BadRequest
  | Unauthenticated
  | Forbidden
  | NotFound
  | Conflict
  | ValidationFailed
  | RateLimited
  | Unavailable

/** The single table mapping core refusals to tRPC codes (design.md section 1). */
export const trpcCodeOf = {
  BadRequest: "BAD_REQUEST",
  Unauthenticated: "UNAUTHORIZED",
  Forbidden: "FORBIDDEN",
  NotFound: "NOT_FOUND",
  Conflict: "CONFLICT",
  ValidationFailed: "UNPROCESSABLE_CONTENT",
  RateLimited: "TOO_MANY_REQUESTS",
  Unavailable: "SERVICE_UNAVAILABLE"
} as const satisfies Record<DomainError["_tag"], TRPC_ERROR_CODE_KEY>

const domainTags = new Set<string>(Object.keys(trpcCodeOf))

export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && "_tag" in u && domainTags.has((u as { _tag: string })._tag)
