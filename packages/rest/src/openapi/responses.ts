import {
  ERROR_CODES,
  ERROR_KINDS,
  isRefusalCode,
  PLAIN_REFUSALS,
  RATE_LIMIT_EXCEEDED,
  REFUSALS,
  REQUEST_ERRORS,
  SCOPE_ERRORS,
  type DomainError,
  type ProcedureMeta,
  type RefusalCode,
  type ResponseKind
} from "@fidelis/core"
import { BODYLESS } from "../handler.js"

/*
 * The error bodies and headers every operation documents, and the answers of routes whose success is not
 * JSON: the design's bodies in place of the generator's.
 */

export type Json = Record<string, unknown>

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** What every error body carries beside `detail`: the machine code and the request's id. */
const errorFields: Json = {
  code: {
    type: "string",
    enum: Object.keys(ERROR_CODES),
    description: [
      "Stable machine code: what a program branches on.",
      ...Object.entries(ERROR_CODES).map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
    ].join("\n")
  },
  request_id: {
    type: "string",
    description: "The request's id, also in the X-Request-Id response header; it finds the request in the server's log"
  }
}

const errorBody = (detail: Json): Json => ({
  type: "object",
  required: ["detail", "code", "request_id"],
  properties: { detail, ...errorFields }
})

export const errorSchemas: Json = {
  Problem: errorBody({ type: "string", description: "What went wrong, for people" }),
  ConflictProblem: errorBody({
    type: "object",
    required: ["code", "message"],
    properties: {
      code: {
        type: "string",
        description: "Stable machine code, e.g. INSUFFICIENT_POINTS",
        examples: ["CLIENT_EXISTS"]
      },
      message: { type: "string" }
    }
  }),
  ValidationError: {
    type: "object",
    required: ["loc", "msg", "type"],
    properties: {
      loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
      msg: { type: "string" },
      type: { type: "string" },
      ctx: { type: "object" },
      input: {}
    }
  },
  HTTPValidationError: errorBody({ type: "array", items: ref("ValidationError") }),
  AddressRateLimitProblem: {
    ...errorBody({
      type: "object",
      required: ["error"],
      properties: { error: { type: "string", const: RATE_LIMIT_EXCEEDED } }
    }),
    description: "The public routes' 429 (spec 7.2): the client address used up its budget"
  }
}

export const rateLimitHeaders: Json = {
  "X-RateLimit-Limit": {
    description: "Requests allowed per minute for this key (public routes: for this client address)",
    schema: { type: "integer" }
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Epoch seconds when the window resets", schema: { type: "integer" } }
}

export const locationHeader: Json = {
  Location: {
    description: "The path of what was created, which the routes that read or change it take",
    schema: { type: "string", format: "uri-reference" }
  }
}

const retryAfterHeader: Json = {
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } }
}

const problem = (description: string, schema = "Problem", headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: ref(schema) } }
})

/** Each kind's body: the 422 item list, a code and message (503), the public 429's code, or a plain detail. */
const kindSchema = (kind: DomainError["_tag"], isPublic: boolean) =>
  kind === "ValidationFailed"
    ? "HTTPValidationError"
    : kind === "Unavailable"
      ? "ConflictProblem"
      : kind === "RateLimited" && isPublic
        ? "AddressRateLimitProblem"
        : "Problem"

const challengeHeader: Json = {
  "WWW-Authenticate": {
    description:
      'The scheme to authenticate with: `Bearer realm="fidelis"`, and `error="invalid_token"` when a ' +
      "credential was sent, with `error_description` saying what to check",
    schema: { type: "string" }
  }
}

const kindHeaders = (kind: DomainError["_tag"]): Json | undefined =>
  kind === "RateLimited"
    ? { ...rateLimitHeaders, ...retryAfterHeader }
    : kind === "Unavailable"
      ? retryAfterHeader
      : kind === "Unauthenticated"
        ? challengeHeader
        : undefined

const kindResponse = (kind: DomainError["_tag"], isPublic = false) =>
  problem(ERROR_KINDS[kind].meaning, kindSchema(kind, isPublic), kindHeaders(kind))

/** `oneOf` with a single choice is that choice. */
const oneOf = (choices: ReadonlyArray<Json>): Json => (choices.length === 1 ? choices[0]! : { oneOf: choices })

/**
 * A 409 naming each code the operation declares, for people (the list) and generators (`oneOf`);
 * codes spec 7.2 answers with a plain `detail` string are described, with the plain body.
 */
const conflictResponse = (codes: ReadonlyArray<RefusalCode>) =>
  codes.every((code) => PLAIN_REFUSALS.has(code))
    ? problem(codes.map((code) => REFUSALS[code]).join("; "))
    : {
        description: [
          `${ERROR_KINDS.Conflict.meaning}; \`detail.code\` says which:`,
          ...codes.map((code) => `- \`${code}\`: ${REFUSALS[code]}`)
        ].join("\n"),
        content: {
          "application/json": {
            schema: {
              allOf: [ref("ConflictProblem")],
              properties: {
                detail: {
                  properties: { code: oneOf(codes.map((code) => ({ const: code, description: REFUSALS[code] }))) }
                }
              }
            }
          }
        }
      }

/** What a route that reads a body refuses before its procedure runs: a body too large, or of another type. */
const bodyResponses = (meta: ProcedureMeta): Json => {
  const types = meta.openapi?.contentTypes ?? ["application/json"]
  return {
    "413": problem(`${REQUEST_ERRORS.PAYLOAD_TOO_LARGE.meaning}: 1 MiB, unless the server sets another limit`),
    "415": problem(`The body must be sent with \`Content-Type: ${types.join("` or `")}\``)
  }
}

/**
 * The error responses an operation can give (spec sections 7.1 and 7.2), in the design's bodies:
 * its scope's (credentials, plan, rate limit), 422 when it takes input, the refusals it declares
 * (400, 404, and 409 with each code), and 413 and 415 when it reads a body.
 */
export const errorResponses = (meta: ProcedureMeta, takesInput: boolean): Json => {
  const refusals = meta.refusals ?? []
  const isPublic = (meta.scope ?? "public") === "public"
  const kinds = [
    ...SCOPE_ERRORS[meta.scope ?? "public"],
    ...(meta.staffRole !== undefined ? (["Forbidden"] as const) : []),
    ...(refusals.includes("BAD_REQUEST") ? (["BadRequest"] as const) : []),
    ...(refusals.includes("NOT_FOUND") ? (["NotFound"] as const) : []),
    ...(takesInput ? (["ValidationFailed"] as const) : [])
  ]
  const codes = refusals.filter(isRefusalCode)
  return {
    ...Object.fromEntries(kinds.map((kind) => [String(ERROR_KINDS[kind].status), kindResponse(kind, isPublic)])),
    ...(codes.length > 0 && { "409": conflictResponse(codes) }),
    ...(!BODYLESS.has(meta.openapi?.method ?? "GET") && bodyResponses(meta)),
    "500": problem(REQUEST_ERRORS.INTERNAL_ERROR.meaning),
    "503": kindResponse("Unavailable")
  }
}

const htmlResponse = (description: unknown) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } }
})

/** The success of a route whose answer is not JSON (`meta.response`), as REST serves it. */
export const nonJsonSuccess = (kind: ResponseKind, description: unknown): Record<string, Json> => {
  const expired: Record<string, Json> =
    kind.kind !== "file" && kind.expired !== undefined ? { "410": htmlResponse(kind.expired) } : {}
  switch (kind.kind) {
    case "redirect":
      return {
        "302": {
          description: "Redirects to the URL signed in the link",
          headers: { Location: { description: "The target", schema: { type: "string", format: "uri" } } }
        },
        ...expired
      }
    case "html":
      return { "200": htmlResponse(description), ...expired }
    case "file":
      return {
        "200": { description, content: { [kind.contentType]: { schema: { type: "string", format: "binary" } } } }
      }
  }
}
