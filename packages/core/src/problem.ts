import type { TRPCError } from "@trpc/server"
import { getHTTPStatusCodeFromError } from "@trpc/server/http"
import type { ZodError } from "zod"
import { isDomainError, type ValidationIssue } from "./errors.js"
import type { ProcedureMeta } from "./meta.js"

/** An error as every HTTP-speaking surface shows it: status, headers and the design's `detail` body. */
export interface Problem {
  readonly status: number
  readonly body: { readonly detail: unknown }
  /** Headers the response must carry, e.g. `Retry-After` on 429 and 503. */
  readonly headers?: Readonly<Record<string, string>>
}

export const INTERNAL_MESSAGE = "Internal server error"

/**
 * The one translation from a procedure failure to the wire (design.md section 1). Internal errors
 * never carry their message out: it may hold SQL or stack details.
 */
export const problemOf = (error: TRPCError): Problem => {
  const status = getHTTPStatusCodeFromError(error)
  const cause = error.cause
  if (isDomainError(cause)) {
    switch (cause._tag) {
      case "ValidationFailed":
        return { status, body: { detail: cause.issues } }
      case "Conflict":
        return { status, body: { detail: { code: cause.code, message: cause.message } } }
      case "RateLimited":
        return { status, body: { detail: cause.message }, headers: { "Retry-After": String(cause.retryAfter) } }
      case "Unavailable":
        return {
          status,
          body: { detail: { code: "SERVICE_UNAVAILABLE", message: cause.message } },
          headers: { "Retry-After": String(cause.retryAfter) }
        }
      default:
        return { status, body: { detail: cause.message } }
    }
  }
  if (status >= 500) return { status, body: { detail: INTERNAL_MESSAGE } }
  // Framework refusals before any procedure ran: unknown route, malformed JSON, wrong media type.
  return { status, body: { detail: error.message } }
}

/** The raw value at an issue's path, to tell a missing field from one of the wrong type. */
const valueAt = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key] : undefined),
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
      return issue.format === "uuid" ? "uuid_parsing" : "string_pattern_mismatch"
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
 * Turns a zod input failure into the spec's validation items, each `loc` rooted where the field
 * travelled in a REST call (`path`, `query` or `body`), read from the procedure's own metadata.
 */
export const validationIssues = (error: ZodError, meta: ProcedureMeta | undefined, input?: unknown): ValidationIssue[] => {
  const openapi = meta?.openapi
  const pathParams = openapi ? pathParamsOf(openapi.path) : new Set<string>()
  const inQuery = openapi ? openapi.method === "GET" || openapi.method === "DELETE" : false
  const rootOf = (field: PropertyKey | undefined) =>
    typeof field === "string" && pathParams.has(field) ? "path" : inQuery ? "query" : "body"
  return error.issues.flatMap((issue): ValidationIssue[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        loc: [rootOf(key), ...issue.path.map(keyOf), key],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden"
      }))
    }
    return [{ loc: [rootOf(issue.path[0]), ...issue.path.map(keyOf)], msg: issue.message, type: issueType(issue, input) }]
  })
}

