import { catalogueOf, IDEMPOTENCY_KEY, idempotencyKeyDescription } from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import { generateOpenApiDocument } from "trpc-to-openapi"
import { API_KEY_AUTHENTICATION, API_KEY_SCHEMES, guide, PAGE_PAGINATION } from "./openapi/guide.js"
import {
  errorResponses,
  errorSchemas,
  locationHeader,
  nonJsonSuccess,
  rateLimitHeaders,
  ref,
  type Json
} from "./openapi/responses.js"
import { hoistExample, tagsOf, tidy } from "./openapi/tidy.js"

export { END_USER_GUIDE } from "./openapi/guide.js"

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

/** The licence in the root package.json, as OpenAPI 3.1 names it. */
const LICENSE = { name: "MIT", url: "https://opensource.org/license/mit" }

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
