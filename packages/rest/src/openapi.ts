import {
  catalogueOf,
  ERROR_KINDS,
  IDEMPOTENCY_KEY,
  idempotencyKeyDescription,
  REFUSALS,
  SCOPE_ERRORS,
  type DomainError,
  type ProcedureMeta,
  type RefusalCode
} from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import { generateOpenApiDocument } from "trpc-to-openapi"

export const API_VERSION = "1.5.0"

export interface OpenApiOptions {
  readonly router: AnyRouter
  readonly title: string
  readonly description: string
  /** Absolute or root-relative base of the routes, e.g. `/api/v1/public`. */
  readonly baseUrl: string
  /** How long the server keeps idempotency keys (`CoreConfig.idempotencyTtlSeconds`). */
  readonly idempotencyTtlSeconds: number
}

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

const errorSchemas: Json = {
  Problem: {
    type: "object",
    required: ["detail"],
    properties: { detail: { type: "string", description: "What went wrong, for people" } }
  },
  ConflictProblem: {
    type: "object",
    required: ["detail"],
    properties: {
      detail: {
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
      }
    }
  },
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
  HTTPValidationError: {
    type: "object",
    required: ["detail"],
    properties: { detail: { type: "array", items: ref("ValidationError") } }
  }
}

const rateLimitHeaders: Json = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute for this key", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Epoch seconds when the window resets", schema: { type: "integer" } }
}

const retryAfterHeader: Json = {
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } }
}

const problem = (description: string, schema = "Problem", headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: ref(schema) } }
})

/** Each kind's body: the 422 item list, a code and message (503), or a plain detail. */
const kindSchema = (kind: DomainError["_tag"]) =>
  kind === "ValidationFailed" ? "HTTPValidationError" : kind === "Unavailable" ? "ConflictProblem" : "Problem"

const kindHeaders = (kind: DomainError["_tag"]): Json | undefined =>
  kind === "RateLimited"
    ? { ...rateLimitHeaders, ...retryAfterHeader }
    : kind === "Unavailable"
      ? retryAfterHeader
      : undefined

const kindResponse = (kind: DomainError["_tag"]) =>
  problem(ERROR_KINDS[kind].meaning, kindSchema(kind), kindHeaders(kind))

/** A 409 naming each code the operation declares, for people (the list) and generators (`oneOf`). */
const conflictResponse = (codes: ReadonlyArray<RefusalCode>) => ({
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
            properties: { code: { oneOf: codes.map((code) => ({ const: code, description: REFUSALS[code] })) } }
          }
        }
      }
    }
  }
})

/**
 * The error responses an operation can give (spec section 7.1), in the design's bodies: its
 * scope's (credentials, plan, rate limit), 422 when it takes input, and the refusals it declares:
 * 404, and 409 with each code.
 */
const errorResponses = (meta: ProcedureMeta, takesInput: boolean): Json => {
  const refusals = meta.refusals ?? []
  const kinds = [
    ...SCOPE_ERRORS[meta.scope ?? "public"],
    ...(refusals.includes("NOT_FOUND") ? (["NotFound"] as const) : []),
    ...(takesInput ? (["ValidationFailed"] as const) : [])
  ]
  const codes = refusals.filter((refusal): refusal is RefusalCode => refusal !== "NOT_FOUND")
  return {
    ...Object.fromEntries(kinds.map((kind) => [String(ERROR_KINDS[kind].status), kindResponse(kind)])),
    ...(codes.length > 0 && { "409": conflictResponse(codes) }),
    "500": problem("Unexpected failure; the X-Request-Id header identifies it in the logs"),
    "503": kindResponse("Unavailable")
  }
}

/**
 * The OpenAPI 3.1 document of one base path, from procedure metadata. The library's generic error
 * schemas are replaced by the design's bodies, success codes follow `meta.successStatus`, and
 * idempotent operations document `X-Idempotency-Key`.
 */
export const openApiDocument = ({ router, title, description, baseUrl, idempotencyTtlSeconds }: OpenApiOptions) => {
  const doc = generateOpenApiDocument(router, {
    title,
    description,
    version: API_VERSION,
    baseUrl,
    securitySchemes: {
      ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
      BearerAuth: { type: "http", scheme: "bearer", description: "The same API key as `Authorization: Bearer <key>`" }
    }
  }) as unknown as Json & { paths: Record<string, Record<string, Json>>; components?: Json }

  const schemas: Json = { ...(doc.components?.["schemas"] as Json | undefined) }
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name]
  doc.components = { ...doc.components, schemas: { ...schemas, ...errorSchemas } }

  for (const { meta, input } of catalogueOf(router)) {
    if (!meta.openapi) continue
    const method = meta.openapi.method.toLowerCase()
    const operation = doc.paths[meta.openapi.path]?.[method] as
      (Json & { responses: Json; parameters?: Json[] }) | undefined
    if (operation === undefined) continue
    const isPublic = meta.scope === "public"
    const { "200": ok, ...rest } = operation.responses
    const success = { ...(ok as Json), ...(isPublic ? {} : { headers: rateLimitHeaders }) }
    operation.responses = {
      [String(meta.successStatus ?? 200)]: success,
      ...Object.fromEntries(Object.entries(rest).filter(([code]) => code.startsWith("2"))),
      ...errorResponses(meta, input !== undefined || meta.idempotent === true)
    }
    if (isPublic) delete operation["security"]
    if (meta.idempotent) {
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: IDEMPOTENCY_KEY.header,
          in: "header",
          required: false,
          description: `${idempotencyKeyDescription(idempotencyTtlSeconds)}. A replay carries \`Idempotent-Replayed: true\`; the same key with another body is a 422; while the first is in flight, a 409.`,
          schema: { type: "string", minLength: IDEMPOTENCY_KEY.minLength, maxLength: IDEMPOTENCY_KEY.maxLength }
        }
      ]
    }
  }
  return doc
}
