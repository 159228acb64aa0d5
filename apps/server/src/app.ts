import {
  appRouter,
  Config,
  databaseReady,
  internalApiRouter,
  log,
  MAX_BATCH_CALLS,
  problemOf,
  publicApiRouter,
  requestContextFromHeaders,
  withBodyLimit,
  type CoreRuntime
} from "@fidelis/core"
import { createMcpHandler } from "@fidelis/mcp"
import { createRestHandler, docsAsset, docsPage, openApiDocument } from "@fidelis/rest"
import { fetchRequestHandler } from "@trpc/server/adapters/fetch"
import { H3 } from "h3"

declare module "h3" {
  interface H3EventContext {
    requestId: string
    /** Hands a 5xx's cause to the request's access-log line, the one place it is logged. */
    report: (error: unknown) => void
  }
}

export interface AppOptions {
  readonly runtime: CoreRuntime
  readonly allowedOrigins: ReadonlyArray<string>
  readonly mcpConformanceFixtures?: boolean
  /** Largest request body any surface reads, in bytes. */
  readonly maxBodyBytes: number
}

const PUBLIC_BASE = "/api/v1/public"
const INTERNAL_BASE = "/api/v1/internal"

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** An error and what caused it, stack included, for the log only: never for a response. */
const describe = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
  if (cause === undefined) return text
  return `${text}\ncaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`
}

const levelOf = (status: number) => (status === 503 ? "warn" : status >= 500 ? "error" : "info")

/** The REST base paths: each serves its router's OpenAPI routes and its own OpenAPI document. */
const restApis = [
  {
    base: PUBLIC_BASE,
    router: publicApiRouter,
    title: "Fidelis company API",
    description:
      "Clients, points, coupons, loyalty cards, rewards, referrals, surveys and metrics of one empresa, authenticated with its API key."
  },
  {
    base: INTERNAL_BASE,
    router: internalApiRouter,
    title: "Fidelis platform administration API",
    description: "Empresas, plans and API keys; needs an admin-scope key."
  }
] as const

export const createApp = ({ runtime, allowedOrigins, mcpConformanceFixtures, maxBodyBytes }: AppOptions) => {
  const mcp = createMcpHandler({ runtime, allowedOrigins, conformanceFixtures: mcpConformanceFixtures, maxBodyBytes })

  const app = new H3()
    .get("/healthz", () => json({ status: "ok" }))
    .get("/readyz", async () => {
      try {
        await runtime.runPromise(databaseReady)
        return json({ status: "ready" })
      } catch {
        return json({ status: "unavailable", detail: "database unreachable" }, 503)
      }
    })
    .get("/docs", () => docsPage(`${PUBLIC_BASE}/openapi.json`, "/docs/assets"))
    .get("/docs/assets/:name", (event) => docsAsset(event.context.params?.["name"] ?? ""))

  for (const { base, router, title, description } of restApis) {
    const rest = createRestHandler({ runtime, router, endpoint: base, maxBodyBytes })
    let document: unknown
    app
      .get(`${base}/openapi.json`, async () => {
        document ??= openApiDocument({
          router,
          title,
          description,
          baseUrl: base,
          idempotencyTtlSeconds: (await runtime.runPromise(Config)).idempotencyTtlSeconds
        })
        return json(document)
      })
      .all(`${base}/**`, (event) =>
        rest(event.req, { requestId: event.context.requestId, onInternalError: event.context.report })
      )
  }

  app
    .all("/trpc/**", (event) =>
      fetchRequestHandler({
        endpoint: "/trpc",
        // Read lazily by tRPC, after the procedures' authentication: a stranger's body stays unread.
        req: withBodyLimit(event.req, maxBodyBytes),
        router: appRouter,
        // Each call of a batch counts against the rate limit; this bounds the work of one request.
        maxBatchSize: MAX_BATCH_CALLS,
        createContext: ({ req, resHeaders }) =>
          requestContextFromHeaders(runtime, req.headers, {
            requestId: event.context.requestId,
            signal: req.signal,
            resHeaders
          }),
        responseMeta: ({ errors }) => ({
          headers: Object.assign({}, ...errors.map((error) => problemOf(error).headers))
        }),
        onError: ({ error }) => {
          if (error.code === "INTERNAL_SERVER_ERROR") event.context.report(error)
        }
      })
    )
    .all("/mcp", (event) =>
      mcp(event.req, { requestId: event.context.requestId, onInternalError: event.context.report })
    )
    .all("/**", () => json({ detail: "Not found" }, 404))

  /**
   * Each request gets an id (the caller's X-Request-Id when it is sane), echoed back, and one
   * access-log line, which also carries the cause of a 5xx: a failure is logged once.
   */
  return async (req: Request): Promise<Response> => {
    const started = performance.now()
    const incoming = req.headers.get("x-request-id")
    const requestId = incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
    let failure: unknown
    const report = (error: unknown) => {
      failure ??= error
    }
    let res: Response
    try {
      res = await app.request(req, undefined, { requestId, report })
    } catch (error) {
      report(error)
      res = json({ detail: "Internal server error" }, 500)
    }
    // Responses built elsewhere may have immutable headers; a copy is always writable.
    const headers = new Headers(res.headers)
    headers.set("X-Request-Id", requestId)
    const url = new URL(req.url)
    log(levelOf(res.status), "request", {
      request_id: requestId,
      method: req.method,
      path: url.pathname,
      status: res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(failure !== undefined && { error: describe(failure) })
    })
    return new Response(res.body, { status: res.status, headers })
  }
}
