import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server"
import { getHTTPStatusCodeFromError } from "@trpc/server/http"
import type { ZodError } from "zod"
import {
  errorCodeOf,
  errorKindOfStatus,
  isDomainError,
  PLAIN_REFUSALS,
  REQUEST_ERRORS,
  ValidationFailed,
  type ErrorCode,
  type ValidationIssue
} from "./errors.js"
import { malformedJsonMessage } from "./json-syntax.js"
import type { ProcedureMeta } from "./meta.js"
import { withReceived } from "./validation-messages.js"

/**
 * Every error body, on every surface: the spec's `detail` (a message, the 422 items, or a 409's
 * code and message), with a stable machine `code` and the request's id beside it.
 */
export interface ProblemBody {
  readonly detail: unknown
  /** Stable machine code (ERROR_CODES): what a program branches on. */
  readonly code: ErrorCode
  /** The request's id: the X-Request-Id response header, and the key to the server's log line. */
  readonly request_id: string
}

/** An error as every HTTP-speaking surface shows it: status, headers and body. */
export interface Problem {
  readonly status: number
  readonly body: ProblemBody
  /** Headers the response must carry, e.g. `Retry-After` on 429 and 503, `Allow` on 405. */
  readonly headers?: Readonly<Record<string, string>>
}

export const INTERNAL_MESSAGE = "Internal server error"

export type RequestErrorCode = keyof typeof REQUEST_ERRORS

const REQUEST_ERROR_TRPC: Record<RequestErrorCode, TRPC_ERROR_CODE_KEY> = {
  MALFORMED_JSON: "PARSE_ERROR",
  ROUTE_NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_SUPPORTED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  REQUEST_ABORTED: "CLIENT_CLOSED_REQUEST",
  INTERNAL_ERROR: "INTERNAL_SERVER_ERROR"
}

/** The cause of a refusal of the request itself, with the headers its response carries. */
export class RequestRefused extends Error {
  constructor(
    readonly code: RequestErrorCode,
    message: string,
    readonly headers?: Readonly<Record<string, string>>
  ) {
    super(message)
    this.name = "RequestRefused"
  }
}

/** A refusal of the request itself (REQUEST_ERRORS), thrown like any other. */
export const requestRefusal = (
  code: RequestErrorCode,
  message: string,
  headers?: Readonly<Record<string, string>>
): TRPCError =>
  new TRPCError({ code: REQUEST_ERROR_TRPC[code], message, cause: new RequestRefused(code, message, headers) })

/**
 * A body that is not JSON: a 400 whose detail says where it broke and what was expected there
 * (only what the parser said, when the text is not at hand).
 */
export const malformedJson = (text: string | undefined, cause?: unknown): TRPCError =>
  requestRefusal("MALFORMED_JSON", malformedJsonMessage(text, cause))

/** The codes of refusals a framework (tRPC, trpc-to-openapi, the MCP SDK) makes by itself. */
const FRAMEWORK_CODES: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  PARSE_ERROR: "MALFORMED_JSON",
  BAD_REQUEST: "BAD_REQUEST",
  NOT_FOUND: "ROUTE_NOT_FOUND",
  METHOD_NOT_SUPPORTED: "METHOD_NOT_ALLOWED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  CLIENT_CLOSED_REQUEST: "REQUEST_ABORTED"
}

const frameworkCode = (error: TRPCError, status: number): ErrorCode =>
  FRAMEWORK_CODES[error.code] ?? (status >= 500 ? "INTERNAL_ERROR" : (errorKindOfStatus(status)?.code ?? "BAD_REQUEST"))

/**
 * The frameworks' own 415 message reads `Unsupported content-type "text/plain` (no closing quote)
 * and says nothing of what to send instead.
 */
const FRAMEWORK_MEDIA_TYPE = /^Unsupported content-type "(.*)$/

export const unsupportedMediaTypeMessage = (type: string | null): string => {
  const given =
    type === null || type === ""
      ? "The Content-Type header is missing"
      : `Content-Type ${JSON.stringify(type)} is not supported`
  return `${given}: send the body as JSON, with the header Content-Type: application/json`
}

const frameworkDetail = (error: TRPCError): string => {
  if (error.code !== "UNSUPPORTED_MEDIA_TYPE") return error.message
  const given = FRAMEWORK_MEDIA_TYPE.exec(error.message)
  return given !== null || error.message === "Missing content-type header"
    ? unsupportedMediaTypeMessage(given?.[1] ?? null)
    : error.message
}

/** The machine code of a public route's 429 (spec 7.2). */
export const RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"

/**
 * The one translation from a procedure failure to the wire (docs/architecture.md, "Errors"). Internal errors
 * never carry their message out: it may hold SQL or stack details.
 */
export const problemOf = (error: TRPCError, requestId: string): Problem => {
  const status = getHTTPStatusCodeFromError(error)
  const cause = error.cause
  const problem = (detail: unknown, code: ErrorCode, headers?: Readonly<Record<string, string>>): Problem => ({
    status,
    body: { detail, code, request_id: requestId },
    ...(headers !== undefined && { headers })
  })
  if (isDomainError(cause)) {
    const code = errorCodeOf(cause)
    switch (cause._tag) {
      case "ValidationFailed":
        return problem(cause.issues, code)
      case "Conflict":
        return problem(
          PLAIN_REFUSALS.has(cause.code)
            ? cause.message
            : { ...cause.details, code: cause.code, message: cause.message },
          code
        )
      case "RateLimited":
        // Spec 7.2 gives the public routes' body; the company API's is the design's plain detail.
        return problem(cause.budget === "address" ? { error: RATE_LIMIT_EXCEEDED } : cause.message, code, {
          "Retry-After": String(cause.retryAfter)
        })
      case "Unavailable":
        return problem({ code, message: cause.message }, code, { "Retry-After": String(cause.retryAfter) })
      default:
        return problem(cause.message, code)
    }
  }
  if (cause instanceof RequestRefused) return problem(cause.message, cause.code, cause.headers)
  if (status >= 500) return problem(INTERNAL_MESSAGE, "INTERNAL_ERROR")
  // Refusals a framework made before any procedure ran: unknown procedure, wrong media type.
  return problem(frameworkDetail(error), frameworkCode(error, status))
}

/** The raw value at an issue's path, to tell a missing field from one of the wrong type. */
const valueAt = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (node, key) =>
      node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    input
  )

const issueType = (issue: ZodError["issues"][number], input: unknown): string => {
  switch (issue.code) {
    case "invalid_type":
      return valueAt(input, issue.path) === undefined ? "missing" : `${issue.expected}_type`
    case "too_small":
      if (issue.origin === "string") return "string_too_short"
      if (issue.origin === "array" || issue.origin === "set") return "too_short"
      return issue.inclusive ? "greater_than_equal" : "greater_than"
    case "too_big":
      if (issue.origin === "string") return "string_too_long"
      if (issue.origin === "array" || issue.origin === "set") return "too_long"
      return issue.inclusive ? "less_than_equal" : "less_than"
    case "invalid_format":
      return issue.format === "guid" || issue.format === "uuid" ? "uuid_parsing" : "string_pattern_mismatch"
    case "invalid_value":
      return "enum"
    case "unrecognized_keys":
      return "extra_forbidden"
    case "not_multiple_of":
      return "multiple_of"
    default:
      return "value_error"
  }
}

const keyOf = (k: PropertyKey): string | number => (typeof k === "number" ? k : String(k))

const pathParamsOf = (path: string): ReadonlySet<string> =>
  new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string))

/**
 * Items a 422 lists at most. A body of 100,000 unknown keys or bad values would otherwise answer
 * with one item each: megabytes built, serialized and sent while the event loop waits.
 */
export const MAX_VALIDATION_ITEMS = 20

/**
 * Where a REST call carries each top-level input field (`path`, `query` or `body`), read from the
 * procedure's own metadata, so every validation `loc` is rooted where the caller put the field.
 */
export const rootOfField = (meta: ProcedureMeta | undefined) => {
  if (meta === undefined) return rootInBody
  let root = roots.get(meta)
  if (root === undefined) {
    const openapi = meta.openapi
    const pathParams = openapi ? pathParamsOf(openapi.path) : new Set<string>()
    const inQuery = openapi ? openapi.method === "GET" || openapi.method === "DELETE" : false
    root = (field) => (typeof field === "string" && pathParams.has(field) ? "path" : inQuery ? "query" : "body")
    roots.set(meta, root)
  }
  return root
}

type FieldRoot = (field: PropertyKey | undefined) => "path" | "query" | "body"

const rootInBody: FieldRoot = () => "body"

/** By procedure: every call's input is walked for NUL characters (`nulCharacterIssues`), each with its root. */
const roots = new WeakMap<ProcedureMeta, FieldRoot>()

/**
 * Turns a zod input failure into the spec's validation items. Past MAX_VALIDATION_ITEMS, a last
 * item of the same shape says how many were left out.
 */
export const validationIssues = (
  error: ZodError,
  meta: ProcedureMeta | undefined,
  input?: unknown
): ValidationIssue[] => {
  const rootOf = rootOfField(meta)
  const items: ValidationIssue[] = []
  let total = 0
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      total += issue.keys.length
      for (const key of issue.keys.slice(0, MAX_VALIDATION_ITEMS - items.length)) {
        items.push({
          loc: [rootOf(key), ...issue.path.map(keyOf), key],
          msg: issue.message,
          type: "extra_forbidden"
        })
      }
    } else {
      total += 1
      if (items.length < MAX_VALIDATION_ITEMS) {
        items.push({
          loc: [rootOf(issue.path[0]), ...issue.path.map(keyOf)],
          msg: withReceived(issue.message, issue, valueAt(input, issue.path)),
          type: issueType(issue, input)
        })
      }
    }
  }
  const omitted = total - items.length
  if (omitted > 0) {
    items.push({
      loc: [rootOf(undefined)],
      msg: `${omitted} more errors not listed; only the first ${MAX_VALIDATION_ITEMS} are`,
      type: "too_many_errors"
    })
  }
  return items
}

/** A validation refusal as a procedure throws it, so every surface answers it through `problemOf`. */
export const validationError = (issues: ReadonlyArray<ValidationIssue>): TRPCError => {
  const cause = new ValidationFailed({ issues })
  return new TRPCError({ code: "UNPROCESSABLE_CONTENT", message: cause.message, cause })
}

export const NUL_MESSAGE = "Must not contain the NUL character (\\u0000)"
export const NUL_TYPE = "string_nul_character"

/**
 * Every string in a raw input (object keys included) that holds a NUL character, up to
 * MAX_VALIDATION_ITEMS. Postgres cannot store one in text, so it is refused up front for every
 * procedure instead of failing at the database. Walked with an explicit stack: a deeply nested
 * hostile body must not overflow ours.
 */
export const nulCharacterIssues = (input: unknown, meta: ProcedureMeta | undefined): ValidationIssue[] => {
  const rootOf = rootOfField(meta)
  const issues: ValidationIssue[] = []
  // Paths as parent links, built into arrays only when reported: copying them per level would
  // make a deeply nested body quadratic.
  type Path = { readonly key: string | number; readonly parent: Path } | null
  const report = (path: Path) => {
    const keys: Array<string | number> = []
    for (let node = path; node !== null; node = node.parent) keys.push(node.key)
    keys.reverse()
    issues.push({ loc: [rootOf(keys[0]), ...keys], msg: NUL_MESSAGE, type: NUL_TYPE })
  }
  const stack: Array<{ readonly value: unknown; readonly path: Path }> = [{ value: input, path: null }]
  while (stack.length > 0 && issues.length < MAX_VALIDATION_ITEMS) {
    const { value, path } = stack.pop()!
    if (typeof value === "string") {
      if (value.includes("\0")) report(path)
    } else if (Array.isArray(value)) {
      value.forEach((item, key) => stack.push({ value: item, path: { key, parent: path } }))
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\0")) report({ key, parent: path })
        else stack.push({ value: item, path: { key, parent: path } })
      }
    }
  }
  return issues
}
