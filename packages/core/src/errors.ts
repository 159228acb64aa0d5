import type { TRPC_ERROR_CODE_KEY } from "@trpc/server"
import { Data } from "effect"

/** One item of the spec's validation-error body (section 2.1). */
export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
}

/**
 * Every stable code a 409 carries, with its meaning for people (the OpenAPI document describes
 * each code with it). A code missing here does not compile, so a typo never reaches the wire.
 */
export const REFUSALS = {
  CLIENT_EXISTS: "A client with this email or CPF already exists in the empresa",
  INSUFFICIENT_POINTS: "The client's balance does not cover the points this needs; nothing changed",
  OUT_OF_STOCK: "Fewer units are left in stock than requested; nothing changed",
  PRODUCT_INACTIVE: "The product is not active",
  COUPON_USED: "The coupon was already used",
  COUPON_EXPIRED: "The coupon is past its deadline",
  COUPON_CANCELLED: "The coupon was cancelled",
  CARD_ALREADY_ISSUED: "The client already has an open (unclaimed) card of this program",
  CARD_COMPLETED: "The card is full or its reward was claimed: it takes no more stamps",
  STAMPS_EXCEED_REMAINING: "The quantity is more than the card still needs; nothing was stamped",
  CARD_NOT_COMPLETED: "The card is not complete yet, so its reward cannot be claimed",
  CARD_ALREADY_CLAIMED: "The card's reward was already claimed",
  PROGRAM_INACTIVE: "The loyalty program is inactive: it issues no cards and takes no stamps",
  CAMPAIGN_OVERLAP: "Another active referral campaign covers part of this window",
  DEFAULT_SURVEY_LOCKED: "The default survey's questions, validity and review flag cannot change",
  ID_NAME_TAKEN: "Another empresa already uses this id_name",
  CNPJ_TAKEN: "Another empresa already has this CNPJ",
  IDEMPOTENCY_IN_FLIGHT: "A request with this X-Idempotency-Key is still being processed; retry shortly"
} as const

export type RefusalCode = keyof typeof REFUSALS

/** What a procedure declares it may refuse with: a 404, or a 409 with one of the codes. */
export type Refusal = "NOT_FOUND" | RefusalCode

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

/**
 * A state or business rule refused the operation. The code's literal type is inferred where the
 * refusal is made, so each method's error channel names the codes it can give.
 */
export class Conflict<C extends RefusalCode = RefusalCode> extends Data.TaggedError("Conflict")<{
  readonly code: C
  readonly message: string
}> {}

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
  BadRequest | Unauthenticated | Forbidden | NotFound | Conflict | ValidationFailed | RateLimited | Unavailable

/** The refusals a program's error type can give, as procedures declare them. */
export type RefusalsOf<E> = E extends Conflict<infer C> ? C : E extends NotFound ? "NOT_FOUND" : never

/** How every surface carries one kind of error. */
export interface ErrorKind {
  readonly status: number
  readonly trpc: TRPC_ERROR_CODE_KEY
  /**
   * `tool-result`: a result with `isError: true` the assistant can act on (fix its arguments,
   * pick another coupon); `http`: the HTTP response itself, as it concerns the whole request.
   */
  readonly mcp: "tool-result" | "http"
  /** The CLI's exit status (its ExitCode). */
  readonly exit: number
  /** What it means, for people (the OpenAPI responses' description). */
  readonly meaning: string
}

/** The one error table (design.md section 1): every kind of error core gives, on every surface. */
export const ERROR_KINDS = {
  BadRequest: {
    status: 400,
    trpc: "BAD_REQUEST",
    mcp: "tool-result",
    exit: 2,
    meaning: "The request contradicts itself (e.g. X-API-Key and Authorization carry different keys)"
  },
  Unauthenticated: {
    status: 401,
    trpc: "UNAUTHORIZED",
    mcp: "http",
    exit: 3,
    meaning: "Missing, malformed, unknown or revoked API key"
  },
  Forbidden: {
    status: 403,
    trpc: "FORBIDDEN",
    mcp: "http",
    exit: 3,
    meaning: "No API access on this plan, or the key lacks the scope"
  },
  NotFound: {
    status: 404,
    trpc: "NOT_FOUND",
    mcp: "tool-result",
    exit: 4,
    meaning: "Not found, or not this empresa's"
  },
  Conflict: {
    status: 409,
    trpc: "CONFLICT",
    mcp: "tool-result",
    exit: 5,
    meaning: "A business rule refused the operation"
  },
  ValidationFailed: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    mcp: "tool-result",
    exit: 2,
    meaning: "Invalid header, query, path or body"
  },
  // A tool call past the budget is a result: the calls beside it in the same request already ran.
  // A request refused before any call (its own count) is still an HTTP 429.
  RateLimited: { status: 429, trpc: "TOO_MANY_REQUESTS", mcp: "tool-result", exit: 6, meaning: "Rate limit exceeded" },
  Unavailable: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    mcp: "http",
    exit: 7,
    meaning: "The database is unreachable for now; retry after Retry-After seconds"
  }
} as const satisfies Record<DomainError["_tag"], ErrorKind>

/** One row of the table, with its literal values (a CLI exit status the CLI's own type checks). */
export type ErrorKindRow = (typeof ERROR_KINDS)[DomainError["_tag"]]

const kindByStatus = new Map<number, ErrorKindRow>(Object.values(ERROR_KINDS).map((kind) => [kind.status, kind]))

/**
 * The kind of error an HTTP status stands for. Refusals tRPC makes before any procedure runs
 * (PARSE_ERROR is a 400) are treated as the kind with their status; others (413, 499) have none.
 */
export const errorKindOfStatus = (status: number): ErrorKindRow | undefined => kindByStatus.get(status)

export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && "_tag" in u && Object.hasOwn(ERROR_KINDS, (u as { _tag: string })._tag)

/** The refusal an error is, as procedures declare it; undefined for the other kinds. */
export const refusalOf = (error: DomainError): Refusal | undefined =>
  error._tag === "Conflict" ? error.code : error._tag === "NotFound" ? "NOT_FOUND" : undefined
