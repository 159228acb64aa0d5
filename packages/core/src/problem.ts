import { TRPCError } from "@trpc/server"
import { getHTTPStatusCodeFromError } from "@trpc/server/http"
import type { ZodError } from "zod"
import { isDomainError, ValidationFailed, type ValidationIssue } from "./errors.js"
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
 * Items a 422 lists at most. A body of 100,000 unknown keys or bad values would otherwise answer
 * with one item each: megabytes built, serialized and sent while the event loop waits.
 */
export const MAX_VALIDATION_ITEMS = 20

/**
 * Where a REST call carries each top-level input field (`path`, `query` or `body`), read from the
 * procedure's own metadata, so every validation `loc` is rooted where the caller put the field.
 */
const rootOfField = (meta: ProcedureMeta | undefined) => {
  const openapi = meta?.openapi
  const pathParams = openapi ? pathParamsOf(openapi.path) : new Set<string>()
  const inQuery = openapi ? openapi.method === "GET" || openapi.method === "DELETE" : false
  return (field: PropertyKey | undefined) =>
    typeof field === "string" && pathParams.has(field) ? "path" : inQuery ? "query" : "body"
}

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
          msg: "Extra inputs are not permitted",
          type: "extra_forbidden"
        })
      }
    } else {
      total += 1
      if (items.length < MAX_VALIDATION_ITEMS) {
        items.push({
          loc: [rootOf(issue.path[0]), ...issue.path.map(keyOf)],
          msg: issue.message,
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
