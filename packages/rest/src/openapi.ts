import {
  AREAS,
  catalogueOf,
  ERROR_CODES,
  ERROR_KINDS,
  IDEMPOTENCY_KEY,
  idempotencyKeyDescription,
  isRefusalCode,
  PLAIN_REFUSALS,
  RATE_LIMIT_EXCEEDED,
  REFUSALS,
  REQUEST_ERRORS,
  SCOPE_ERRORS,
  type DomainError,
  type ProcedureEntry,
  type ProcedureMeta,
  type RefusalCode,
  type ResponseKind
} from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import { generateOpenApiDocument } from "trpc-to-openapi"
import { BODYLESS } from "./handler.js"

export const API_VERSION = "1.5.0"

export interface OpenApiOptions {
  readonly router: AnyRouter
  readonly title: string
  readonly description: string
  /**
   * The URL the routes are under: absolute (`https://fidelis.example.com/api/v1/public`), or relative to
   * where the document is served (`/api/v1/public`).
   */
  readonly serverUrl: string
  /** How long the server keeps idempotency keys (`CoreConfig.idempotencyTtlSeconds`). */
  readonly idempotencyTtlSeconds: number
  /** How its callers authenticate; by default the company API's key (either header). */
  readonly securitySchemes?: Json
  /** The guide's authentication and pagination sections, when they differ from the company API's. */
  readonly authentication?: string
  readonly pagination?: string
}

const API_KEY_SCHEMES: Json = {
  ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
  BearerAuth: { type: "http", scheme: "bearer", description: "The same API key as `Authorization: Bearer <key>`" }
}

/** What the end-user API's document says differently: the access token, and the spec's pagination object. */
export const END_USER_GUIDE = {
  securitySchemes: {
    bearerAuth: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "`access_token` from /auth/register, /auth/login or /auth/refresh; valid one hour"
    }
  },
  authentication: `
Register or log in to get an \`access_token\` (a JWT, valid one hour) and a \`refresh_token\`. Send the access
token as \`Authorization: Bearer <token>\`. When it expires the API answers 401; call \`/auth/refresh\` with the
refresh token, which returns a new pair (each refresh token works once), and repeat the request.`.trim(),
  pagination: `
Lists take \`page\` (from 1) and \`limit\` and answer a \`pagination\` object with \`page\`, \`limit\`, \`total\`,
\`total_pages\`, \`has_next\` and \`has_prev\`.`.trim()
}

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

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

const errorSchemas: Json = {
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

const rateLimitHeaders: Json = {
  "X-RateLimit-Limit": {
    description: "Requests allowed per minute for this key (public routes: for this client address)",
    schema: { type: "integer" }
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Epoch seconds when the window resets", schema: { type: "integer" } }
}

const locationHeader: Json = {
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
const errorResponses = (meta: ProcedureMeta, takesInput: boolean): Json => {
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
const nonJsonSuccess = (kind: ResponseKind, description: unknown): Record<string, Json> => {
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

/** The licence in the root package.json, as OpenAPI 3.1 names it. */
const LICENSE = { name: "MIT", url: "https://opensource.org/license/mit" }

const MAX_SAFE = Number.MAX_SAFE_INTEGER

/**
 * Formats beside which zod writes a pattern that says the same at length (a date-time's is 320
 * characters): RFC 3339's `date` and `date-time` (offset and seconds required, as zod's), and `uuid`.
 */
const FORMATS_THAT_SAY_IT: ReadonlySet<unknown> = new Set(["uuid", "date", "date-time"])

/**
 * Drops what zod writes for every uuid, date and instant (a long pattern beside the format) and
 * every integer (±2^53 bounds): they say nothing to a reader and make generated validators slower
 * and noisier.
 */
const tidy = (node: unknown): void => {
  if (typeof node !== "object" || node === null) return
  if (!Array.isArray(node)) {
    const schema = node as Json
    if (FORMATS_THAT_SAY_IT.has(schema["format"])) delete schema["pattern"]
    if (schema["minimum"] === -MAX_SAFE) delete schema["minimum"]
    if (schema["maximum"] === MAX_SAFE) delete schema["maximum"]
  }
  for (const value of Object.values(node)) tidy(value)
}

/**
 * The request body's example, from its input schema's `examples` in core, on each media type where
 * reference pages and generators look for it; the path parameters it also names are not in the body.
 * Read from the input itself: the generator keeps the examples of some bodies only.
 */
const hoistExample = (operation: Json, input: ProcedureEntry["input"]) => {
  const [example] = (input?.meta()?.["examples"] as ReadonlyArray<Json> | undefined) ?? []
  const content = (operation["requestBody"] as Json | undefined)?.["content"] as Record<string, Json> | undefined
  for (const media of Object.values(content ?? {})) {
    const schema = media["schema"] as Json
    delete schema["examples"]
    if (example === undefined) continue
    const properties = (schema["properties"] as Json | undefined) ?? {}
    media["example"] = Object.fromEntries(Object.entries(example).filter(([name]) => name in properties))
  }
}

/** The tags the document's operations use, in core's order of areas, each with its description. */
const tagsOf = (paths: Record<string, Record<string, Json>>) => {
  const used = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation["tags"] as ReadonlyArray<string> | undefined) ?? [])
    )
  )
  for (const tag of used) if (AREAS[tag] === undefined) throw new Error(`OpenAPI tag ${tag} has no entry in AREAS`)
  return Object.entries(AREAS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }))
}

/** The reference page's opening: what every route shares, before the routes themselves. */
const API_KEY_AUTHENTICATION = `
Send the empresa's API key in \`X-API-Key: <key>\` (or \`Authorization: Bearer <key>\`). A company key reaches
its own empresa; an admin key also reaches the administration API, and acts on one empresa's routes when the
request names it in \`Fidelis-Empresa: <empresa id>\`. The survey routes a respondent's page calls take no key.
A missing or wrong key is a 401, a key without the right scope or plan a 403.`.trim()

const PAGE_PAGINATION = `
Lists take \`page\` (from 1) and \`per_page\` (1 to 100, default 20) and answer
\`{ data, total, page, pages, per_page }\`.`.trim()

const guide = (idempotencyTtlSeconds: number, authentication: string, pagination: string) =>
  `
## Authentication

${authentication}

## Errors

Every error body is JSON with \`detail\` (what went wrong, for people), \`code\` (a stable machine code to branch
on, e.g. \`VALIDATION_FAILED\`, \`NOT_FOUND\`, \`INSUFFICIENT_POINTS\`) and \`request_id\` (also in the
\`X-Request-Id\` response header; quote it when reporting a problem). A 422 lists each invalid field with its
location (\`loc\`) and message (\`msg\`); a 409 refusal of a business rule carries its code in \`detail.code\`.

## Idempotency

Writes accept \`X-Idempotency-Key\`, a unique string per operation such as a UUID; send one whenever a request
may be retried. ${idempotencyKeyDescription(idempotencyTtlSeconds)}; a replay is marked \`Idempotent-Replayed: true\`.

## Rate limits

Each key has a budget of requests per minute (the public routes: each client address). Every answer carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds); past the budget
the answer is a 429 with \`Retry-After\` in seconds.

## Pagination

${pagination}
`.trim()

/**
 * The OpenAPI 3.1 document of one base path, from procedure metadata. The library's generic error
 * schemas are replaced by the design's bodies, success codes follow `meta.successStatus`, and
 * idempotent operations document `X-Idempotency-Key`.
 */
export const openApiDocument = ({
  router,
  title,
  description,
  serverUrl,
  idempotencyTtlSeconds,
  securitySchemes = API_KEY_SCHEMES,
  authentication = API_KEY_AUTHENTICATION,
  pagination = PAGE_PAGINATION
}: OpenApiOptions) => {
  // A copy: the generator may hand out schema objects it reuses, and this function edits the document.
  const doc = structuredClone(
    generateOpenApiDocument(router, {
      title,
      description: `${description}\n\n${guide(idempotencyTtlSeconds, authentication, pagination)}`,
      version: API_VERSION,
      baseUrl: serverUrl,
      license: LICENSE,
      securitySchemes: securitySchemes as never
    })
  ) as unknown as Json & { paths: Record<string, Record<string, Json>>; components?: Json }

  const schemas: Json = { ...(doc.components?.["schemas"] as Json | undefined) }
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name]
  Object.assign(schemas, errorSchemas)
  doc.components = { ...doc.components, schemas }

  for (const { meta, input } of catalogueOf(router)) {
    if (!meta.openapi) continue
    const method = meta.openapi.method.toLowerCase()
    const operation = doc.paths[meta.openapi.path]?.[method] as
      (Json & { responses: Json; parameters?: Json[] }) | undefined
    if (operation === undefined) continue
    const { "200": ok, ...rest } = operation.responses
    const success = { ...(ok as Json), headers: { ...(meta.location && locationHeader), ...rateLimitHeaders } }
    operation.responses = {
      ...(meta.response === undefined
        ? { [String(meta.successStatus ?? 200)]: success }
        : nonJsonSuccess(meta.response, (ok as Json)["description"])),
      ...Object.fromEntries(Object.entries(rest).filter(([code]) => code.startsWith("2"))),
      ...errorResponses(meta, input !== undefined || meta.idempotent !== undefined)
    }
    // An empty list, not none: the route is open, rather than silent about it.
    if (meta.scope === "public" || meta.scope === "account") operation["security"] = []
    hoistExample(operation, input)
    if (meta.idempotent !== undefined) {
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: IDEMPOTENCY_KEY.header,
          in: "header",
          required: false,
          description:
            meta.idempotent === "reject"
              ? `${idempotencyKeyDescription(idempotencyTtlSeconds, "reject")}.`
              : `${idempotencyKeyDescription(idempotencyTtlSeconds)}. ` +
                "A replay carries `Idempotent-Replayed: true`; the same key with another body is a 422; " +
                "while the first is in flight, a 409.",
          schema: { type: "string", minLength: IDEMPOTENCY_KEY.minLength, maxLength: IDEMPOTENCY_KEY.maxLength }
        }
      ]
    }
  }
  // The public routes' 429 body, for one, has no use in a document without public routes.
  const used = JSON.stringify([doc.paths, errorSchemas])
  for (const name of Object.keys(errorSchemas)) if (!used.includes(ref(name).$ref)) delete schemas[name]
  doc["tags"] = tagsOf(doc.paths)
  tidy(doc)
  return doc
}
