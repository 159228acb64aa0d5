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
  CNPJ_TAKEN: "Another empresa already holds this CNPJ (on its profile or registered for NFC-e): a CNPJ has one owner",
  CNPJ_ON_PROFILE: "The CNPJ is an empresa's profile CNPJ: change that empresa's cnpj to release it",
  IDEMPOTENCY_IN_FLIGHT: "A request with this X-Idempotency-Key is still being processed; retry shortly",
  DUPLICATE_RESPONSE: "A response with this X-Idempotency-Key was already recorded for this survey; nothing changed",
  ALERT_EMAIL_NOT_SET: "The empresa has no alert_email setting, and the request names no address",
  EMAIL_TAKEN: "An account with this email already exists; log in, or reset the password",
  TEAM_MEMBER_EXISTS: "The email is already on the empresa's team; change its role instead",
  LAST_ADMIN: "The change would leave the empresa's team without an empresa_admin; nothing changed",
  REWARD_INACTIVE: "The reward or its product is not active: it cannot be redeemed",
  REWARD_EXPIRED: "The reward is past its deadline: it cannot be redeemed",
  REDEMPTION_LIMIT_REACHED: "The user already redeemed this reward as many times as it allows",
  REDEMPTION_VALIDATED: "The redemption was already validated at the counter",
  REDEMPTION_EXPIRED: "The redemption passed its deadline without validation; its points stay spent",
  REDEMPTION_CANCELLED: "The redemption was cancelled and its points returned",
  REDEMPTION_NOT_CANCELLABLE: "A stamp card's claimed reward cannot be cancelled: the card is already claimed",
  CART_EMPTY: "The cart has no items to check out",
  CART_CHECKED_OUT: "The cart was already checked out; add items to open a new one",
  NFCE_ALREADY_SCANNED: "You already scanned this receipt; `detail.task_id` is its task",
  NFCE_CLAIMED_BY_OTHER: "Another account already scanned this receipt: each receipt earns points once",
  SECRET_KEY_NOT_SET: "The server has no FIDELIS_SECRET_KEY, so it stores no secrets; its operator must set one"
} as const

export type RefusalCode = keyof typeof REFUSALS

/**
 * Codes whose 409 body is spec 7.2's `{"detail": "<message>"}` (the public survey routes, whose
 * bodies are plain strings unless the spec says otherwise), not `{"detail": {code, message}}`.
 */
export const PLAIN_REFUSALS: ReadonlySet<RefusalCode> = new Set<RefusalCode>(["DUPLICATE_RESPONSE"])

/**
 * What a procedure declares it may refuse with: a 400 (a request its program finds incoherent,
 * e.g. survey answers that do not fit the survey), a 404, or a 409 with one of the codes.
 */
export type Refusal = "BAD_REQUEST" | "NOT_FOUND" | RefusalCode

/** Whether a declared refusal is a 409 code (not BAD_REQUEST or NOT_FOUND). */
export const isRefusalCode = (refusal: Refusal): refusal is RefusalCode => Object.hasOwn(REFUSALS, refusal)

/**
 * A request that contradicts itself or what it refers to: both auth headers with different values;
 * on the public survey routes, answers that do not fit the survey, a quest that is not the one
 * served, or a phone that is not Brazilian (spec 7.2 answers those with 400).
 */
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
  /** Fields the body's `detail` carries beside `code` and `message`, e.g. the earlier task's id. */
  readonly details?: Readonly<Record<string, unknown>>
}> {}

/** Input that passed the schema but breaks a rule only the domain can check. */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly issues: ReadonlyArray<ValidationIssue>
}> {
  override get message() {
    return this.issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")
  }
}

/**
 * A 422 for an amount that is valid alone but would carry a sum past its bound (docs/decisions.md,
 * "Bounded sums"): `loc` names the field that asked for it, `msg` the sum and the bound.
 */
export const tooLarge = (loc: ReadonlyArray<string>, msg: string) =>
  new ValidationFailed({ issues: [{ loc, msg, type: "less_than_equal" }] })

/**
 * A budget ran out: an API key's (the default) or, on the public routes, a client address's, whose
 * body is spec 7.2's `{"detail": {"error": "RATE_LIMIT_EXCEEDED"}}`.
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly retryAfter: number
  readonly budget?: "key" | "address"
  /**
   * What ran out, for people, when it is not a request budget (the login throttle's lock, a store's
   * receipt velocity).
   */
  readonly reason?: string
}> {
  override get message() {
    return `${this.reason ?? "Rate limit exceeded"}; retry in ${this.retryAfter} s`
  }
}

/**
 * The service cannot take the request right now: the database cannot be reached, or (with its
 * `reason`) too much of the work it needs is waiting already; the same request may succeed after
 * `retryAfter` seconds.
 */
export class Unavailable extends Data.TaggedError("Unavailable")<{
  readonly retryAfter: number
  readonly reason?: string
}> {
  override get message() {
    return this.reason ?? "The service is temporarily unavailable; retry in a few seconds"
  }
}

export type DomainError =
  BadRequest | Unauthenticated | Forbidden | NotFound | Conflict | ValidationFailed | RateLimited | Unavailable

/** The refusals a program's error type can give, as procedures declare them. */
export type RefusalsOf<E> =
  E extends Conflict<infer C> ? C : E extends NotFound ? "NOT_FOUND" : E extends BadRequest ? "BAD_REQUEST" : never

/** How every surface carries one kind of error. */
export interface ErrorKind {
  readonly status: number
  /**
   * The stable machine `code` every error body carries beside `detail`; null for Conflict, whose
   * body carries the refusal's own code (REFUSALS).
   */
  readonly code: string | null
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

/** The one error table (docs/architecture.md, "Errors"): every kind of error core gives, on every surface. */
export const ERROR_KINDS = {
  BadRequest: {
    status: 400,
    code: "BAD_REQUEST",
    trpc: "BAD_REQUEST",
    mcp: "tool-result",
    exit: 2,
    meaning:
      "The request contradicts itself or what it refers to " +
      "(X-API-Key and Authorization carry different keys; answers that do not fit the survey)"
  },
  Unauthenticated: {
    status: 401,
    code: "UNAUTHENTICATED",
    trpc: "UNAUTHORIZED",
    mcp: "http",
    exit: 3,
    meaning: "Missing, malformed, unknown or revoked API key; on the end-user API, a missing or invalid access token"
  },
  Forbidden: {
    status: 403,
    code: "FORBIDDEN",
    trpc: "FORBIDDEN",
    mcp: "http",
    exit: 3,
    meaning:
      "No API access on this plan, or the key lacks the scope; on the end-user API's /admin routes, " +
      "the user's team role in the empresa is below the one the route needs"
  },
  NotFound: {
    status: 404,
    code: "NOT_FOUND",
    trpc: "NOT_FOUND",
    mcp: "tool-result",
    exit: 4,
    meaning: "Not found, or not this empresa's"
  },
  Conflict: {
    status: 409,
    code: null,
    trpc: "CONFLICT",
    mcp: "tool-result",
    exit: 5,
    meaning: "A business rule refused the operation"
  },
  ValidationFailed: {
    status: 422,
    code: "VALIDATION_FAILED",
    trpc: "UNPROCESSABLE_CONTENT",
    mcp: "tool-result",
    exit: 2,
    meaning: "Invalid header, query, path or body"
  },
  // A tool call past the budget is a result: the calls beside it in the same request already ran.
  // A request refused before any call (its own count) is still an HTTP 429.
  RateLimited: {
    status: 429,
    code: "RATE_LIMIT_EXCEEDED",
    trpc: "TOO_MANY_REQUESTS",
    mcp: "tool-result",
    exit: 6,
    meaning: "Rate limit exceeded"
  },
  Unavailable: {
    status: 503,
    code: "SERVICE_UNAVAILABLE",
    trpc: "SERVICE_UNAVAILABLE",
    mcp: "http",
    exit: 7,
    meaning:
      "The database is unreachable for now, or too many password checks are waiting; " +
      "retry after Retry-After seconds"
  }
} as const satisfies Record<DomainError["_tag"], ErrorKind>

/**
 * Refusals of the request itself, made before any procedure runs (by a surface or its framework):
 * no domain error stands for them, but their bodies carry a code like every other.
 */
export const REQUEST_ERRORS = {
  MALFORMED_JSON: { status: 400, meaning: "The body is not valid JSON; `detail` says where it broke" },
  ROUTE_NOT_FOUND: {
    status: 404,
    meaning: "No such path, procedure or tool; under /api/v1, `detail` names the nearest known route"
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: "The path exists, but not with this method; the `Allow` header lists its methods"
  },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: "The body is larger than the server accepts" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: "The body must be JSON, sent with Content-Type: application/json" },
  REQUEST_ABORTED: { status: 499, meaning: "The client closed the request before it finished" },
  INTERNAL_ERROR: {
    status: 500,
    meaning: "Unexpected failure; `request_id` (also the X-Request-Id header) finds it in the server's log"
  }
} as const satisfies Record<string, { readonly status: number; readonly meaning: string }>

// Keyed by the table, not by DomainError's tags (the same set): the published client's types then
// reach no effect class through `error_code`.
type KindCode = NonNullable<(typeof ERROR_KINDS)[keyof typeof ERROR_KINDS]["code"]>

/**
 * Every stable machine `code` an error body can carry, on every surface, with its meaning for
 * people: one per kind of error, each 409 refusal's own, and the request's own refusals.
 */
export const ERROR_CODES: Readonly<Record<ErrorCode, string>> = {
  ...(Object.fromEntries(
    Object.values(ERROR_KINDS).flatMap((kind) => (kind.code === null ? [] : [[kind.code, kind.meaning]]))
  ) as Record<KindCode, string>),
  ...REFUSALS,
  ...(Object.fromEntries(Object.entries(REQUEST_ERRORS).map(([code, { meaning }]) => [code, meaning])) as Record<
    keyof typeof REQUEST_ERRORS,
    string
  >)
}

export type ErrorCode = KindCode | RefusalCode | keyof typeof REQUEST_ERRORS

/** The code a domain error's body carries: a refusal's own, else its kind's. */
export const errorCodeOf = (error: DomainError): ErrorCode =>
  error._tag === "Conflict" ? error.code : ERROR_KINDS[error._tag].code

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
export const refusalOf = (error: DomainError): Refusal | undefined => {
  switch (error._tag) {
    case "Conflict":
      return error.code
    case "NotFound":
      return "NOT_FOUND"
    case "BadRequest":
      return "BAD_REQUEST"
    default:
      return undefined
  }
}
