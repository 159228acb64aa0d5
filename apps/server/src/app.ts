import {
  appRouter,
  Config,
  endUserApiRouter,
  databaseReady,
  INTERNAL_MESSAGE,
  internalApiRouter,
  log,
  MAX_BATCH_CALLS,
  problemOf,
  publicApiRouter,
  requestContextFromHeaders,
  requestRefusal,
  UNNAMED_REQUEST,
  withBodyLimit,
  type CoreRuntime
} from "@fidelis/core"
import { createMcpHandler } from "@fidelis/mcp"
import {
  createRestHandler,
  createRouteIndex,
  docsAsset,
  docsHtml,
  END_USER_GUIDE,
  openApiDocument,
  problemResponse
} from "@fidelis/rest"
import { createHash } from "node:crypto"
import { fetchRequestHandler } from "@trpc/server/adapters/fetch"
import { H3 } from "h3"
import { accountPage } from "./account-pages/index.js"
import { pageNonce, pageResponse } from "./pages/shell.js"
import { surveyPage } from "./survey-page/index.js"

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

const API_BASE = "/api/v1"
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

/** The JSON text of an error whose request id was not known where it was formatted. */
const UNNAMED = `"request_id":${JSON.stringify(UNNAMED_REQUEST)}`

/**
 * tRPC refuses some requests (a wrong media type, a malformed batch) before it builds their context,
 * so its error formatter cannot name the request; its error body gets the id here.
 */
const namingTheRequest = async (res: Response, requestId: string) => {
  const text = await res.text()
  return new Response(text.replaceAll(UNNAMED, `"request_id":${JSON.stringify(requestId)}`), res)
}

/**
 * Headers every answer carries (docs/decisions.md, "API answers: nosniff, no-store, no saved key in
 * /docs"): its request's id; nosniff, so no browser runs a JSON body as a script or a page; and, unless
 * the route chose its caching (the reference's assets, the OpenAPI documents), no-store, so no cache
 * keeps an answer that is one caller's (a balance, a profile, a token pair).
 */
const answerHeaders = (res: Response, requestId: string): Record<string, string> => ({
  "X-Request-Id": requestId,
  "X-Content-Type-Options": "nosniff",
  ...(res.headers.has("cache-control") ? {} : { "Cache-Control": "no-store" })
})

/**
 * The response with `answerHeaders`, in its own headers when they can be changed: a copy of a
 * response would stream its body again. A redirect or a fetched response has immutable headers.
 */
const withAnswerHeaders = (res: Response, requestId: string) => {
  const extra = Object.entries(answerHeaders(res, requestId))
  try {
    for (const [name, value] of extra) res.headers.set(name, value)
    return res
  } catch {
    const headers = new Headers(res.headers)
    for (const [name, value] of extra) headers.set(name, value)
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
  }
}

/**
 * A HEAD request's answer: GET's status and headers without its body (RFC 9110, section 9.3.2), with the
 * length that body would have had.
 */
const headOf = async (res: Response): Promise<Response> => {
  const length = (await res.arrayBuffer()).byteLength
  const headers = new Headers(res.headers)
  if (length > 0 && !headers.has("content-length")) headers.set("content-length", String(length))
  return new Response(null, { status: res.status, statusText: res.statusText, headers })
}

/**
 * The request as a GET, for a HEAD (`headOf`): everything else is its own, the client's address (srvx's
 * `ip`) included, which a copy made with `new Request` would lose.
 */
const asGet = (req: Request): Request =>
  new Proxy(req, {
    get: (target, property) => {
      if (property === "method") return "GET"
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/** An API reference page, under the same headers (CSP, no framing) as the server's other pages. */
const docsResponse = (specUrl: string) => {
  const nonce = pageNonce()
  return pageResponse(docsHtml(specUrl, "/docs/assets", nonce), nonce)
}

const levelOf = (status: number) => (status === 503 ? "warn" : status >= 500 ? "error" : "info")

/** The REST base paths: each serves its router's OpenAPI routes and its own OpenAPI document. */
export const restApis = [
  {
    base: PUBLIC_BASE,
    router: publicApiRouter,
    title: "Fidelis company API",
    description:
      "Clients, points, coupons, loyalty cards, rewards, referrals, surveys and metrics of one empresa, " +
      "authenticated with its API key; and the public survey routes a respondent's page calls, " +
      "which take no key."
  },
  {
    base: INTERNAL_BASE,
    router: internalApiRouter,
    title: "Fidelis platform administration API",
    description: "Empresas, plans and API keys; needs an admin-scope key."
  },
  {
    base: API_BASE,
    router: endUserApiRouter,
    title: "Fidelis end-user API",
    description:
      "A person's account across every store: register, log in, refresh the session and read the profile. " +
      "Authenticated with the bearer access token register, login and refresh return.",
    guide: END_USER_GUIDE
  }
] as const

/**
 * The OpenAPI document an API serves (what `npm run lint:openapi` lints, too). Its server URL is under
 * `publicUrl` (FIDELIS_PUBLIC_URL) when there is one, else relative to the document: never the Host a
 * request named, which anyone can set.
 */
export const restDocument = (
  api: (typeof restApis)[number],
  publicUrl: string | undefined,
  idempotencyTtlSeconds: number
) =>
  openApiDocument({
    router: api.router,
    title: api.title,
    description: api.description,
    serverUrl: `${publicUrl ?? ""}${api.base}`,
    idempotencyTtlSeconds,
    ...("guide" in api && api.guide)
  })

/** A document's JSON text and its ETag, built once per server process. */
interface ServedDocument {
  readonly text: string
  readonly etag: string
}

const servedDocument = (document: unknown): ServedDocument => {
  const text = JSON.stringify(document)
  return { text, etag: `"${createHash("sha256").update(text).digest("base64url")}"` }
}

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
    .get("/", () => new Response(null, { status: 302, headers: { Location: "/docs" } }))
    .get("/docs", () => docsResponse(`${PUBLIC_BASE}/openapi.json`))
    .get("/docs/end-user", () => docsResponse(`${API_BASE}/openapi.json`))
    .get("/docs/assets/:name", (event) => docsAsset(event.context.params?.["name"] ?? ""))
    .get("/s/:ref", surveyPage(runtime))
    .get("/account/verify-email", accountPage("verify-email"))
    .get("/account/reset-password", accountPage("reset-password"))

  // Every REST route, so a path one API lacks can name the nearest route of either.
  const routes = createRouteIndex(restApis)
  for (const api of restApis) {
    const { base, router } = api
    const rest = createRestHandler({ runtime, router, endpoint: base, maxBodyBytes, routes })
    // Built on the first request (tens of milliseconds of CPU), then the same bytes for everyone.
    let served: Promise<ServedDocument> | undefined
    app
      .get(`${base}/openapi.json`, async (event) => {
        served ??= runtime.runPromise(Config).then(
          (config) => servedDocument(restDocument(api, config.publicUrl, config.idempotencyTtlSeconds)),
          (error: unknown) => {
            served = undefined
            throw error
          }
        )
        const { text, etag } = await served
        // The same for everyone: kept, and asked again with its ETag.
        const caching = { etag, "cache-control": "no-cache" }
        if (event.req.headers.get("if-none-match") === etag)
          return new Response(null, { status: 304, headers: caching })
        return new Response(text, { headers: { "content-type": "application/json", ...caching } })
      })
      .all(`${base}/**`, (event) =>
        rest(event.req, {
          requestId: event.context.requestId,
          onInternalError: event.context.report,
          peerAddress: event.req.ip
        })
      )
  }

  app
    .all("/trpc/**", (event) => {
      // Kept as tRPC reads it, so a body it cannot parse is shown where it broke.
      const received: Uint8Array[] = []
      const rawInput = () =>
        event.req.method === "GET"
          ? (event.url.searchParams.get("input") ?? undefined)
          : Buffer.concat(received).toString()
      const answered = fetchRequestHandler({
        endpoint: "/trpc",
        // Read lazily by tRPC, after the procedures' authentication: a stranger's body stays unread.
        req: withBodyLimit(event.req, maxBodyBytes, received),
        router: appRouter,
        // Each call of a batch counts against the rate limit; this bounds the work of one request.
        maxBatchSize: MAX_BATCH_CALLS,
        createContext: ({ req, resHeaders, info }) =>
          requestContextFromHeaders(runtime, req.headers, {
            requestId: event.context.requestId,
            signal: req.signal,
            resHeaders,
            rawInput,
            peerAddress: event.req.ip,
            calls: info.calls.length
          }),
        responseMeta: ({ errors }) => ({
          headers: Object.assign({}, ...errors.map((error) => problemOf(error, event.context.requestId).headers))
        }),
        onError: ({ error }) => {
          if (error.code === "INTERNAL_SERVER_ERROR") event.context.report(error)
        }
      })
      return answered.then((res) => (res.status < 400 ? res : namingTheRequest(res, event.context.requestId)))
    })
    .all("/mcp", (event) =>
      mcp(event.req, {
        requestId: event.context.requestId,
        onInternalError: event.context.report,
        peerAddress: event.req.ip
      })
    )
    .all("/**", (event) =>
      problemResponse(
        problemOf(
          requestRefusal("ROUTE_NOT_FOUND", `Not found: the API is under ${API_BASE}, its reference at /docs`),
          event.context.requestId
        )
      )
    )

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
    // HEAD is answered as GET is, every route and refusal alike, then its body is dropped (`headOf`).
    const head = req.method === "HEAD"
    let res: Response
    try {
      res = await app.request(head ? asGet(req) : req, undefined, { requestId, report })
    } catch (error) {
      report(error)
      res = problemResponse(problemOf(requestRefusal("INTERNAL_ERROR", INTERNAL_MESSAGE), requestId))
    }
    if (head) res = await headOf(res)
    log(levelOf(res.status), "request", {
      request_id: requestId,
      method: req.method,
      // Never the query string, and a credential in the path (an email link's token) by its name only.
      path: routes.loggedPath(new URL(req.url).pathname),
      status: res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(failure !== undefined && { error: describe(failure) })
    })
    return withAnswerHeaders(res, requestId)
  }
}
