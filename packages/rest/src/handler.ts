import {
  admitFor,
  catalogueOf,
  DEFAULT_MAX_BODY_BYTES,
  malformedJson,
  problemOf,
  readBody,
  requestContextFromHeaders,
  settleAdmission,
  validationError,
  type CoreRuntime,
  type Problem,
  type ProcedureMeta,
  type RequestContext,
  type ResponseKind
} from "@fidelis/core"
import { TRPCError, type AnyRouter } from "@trpc/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { FastResponse } from "srvx"
import { createOpenApiNodeHttpHandler, createProcedureCache, normalizePath, type OpenApiMethod } from "trpc-to-openapi"
import { createRouteIndex, type RouteIndex } from "./routes.js"

export interface RestHandlerOptions {
  readonly runtime: CoreRuntime
  /** The router whose `meta.openapi` routes this base path serves. */
  readonly router: AnyRouter
  /** Base path the routes live under, e.g. `/api/v1/public`. */
  readonly endpoint: `/${string}`
  /** Largest request body read, in bytes; larger ones are refused with 413. */
  readonly maxBodyBytes?: number
  /**
   * Every REST route of the server, to name the nearest one when a path has none (a request for
   * `/api/v1/public/empresas` may mean the admin API's); by default this router's own.
   */
  readonly routes?: RouteIndex
}

export interface RestRequestInit {
  readonly requestId: string
  /** The TCP peer's address (the public routes count calls per client address). */
  readonly peerAddress?: string | undefined
  /** Called with every 5xx so the server logs it against the request id. */
  readonly onInternalError?: (error: TRPCError) => void
}

const JSON_TYPE = "application/json"
const FORM_TYPE = "application/x-www-form-urlencoded"

/** What one request leaves behind for the response: its context and the error it ended with. */
interface Exchange {
  readonly ctx: RequestContext
  failure?: TRPCError
}

/** Procedures' metadata by REST route; the library matches the same table again when it runs. */
type RouteOf = (method: string, path: string) => ProcedureMeta | undefined

interface LibraryOptions {
  readonly endpoint: string
  readonly routeOf: RouteOf
  readonly routes: RouteIndex
  readonly maxBodyBytes: number
}

const BODYLESS: ReadonlySet<string> = new Set(["GET", "HEAD", "DELETE"])

/**
 * trpc-to-openapi spreads the body into the procedure's input, so an array would arrive as one
 * unknown key per element (a 5 MB array made 100,000 validation items). Anything but an object is
 * refused as the single item it is.
 */
const NOT_AN_OBJECT = { loc: ["body"], msg: "Input should be a JSON object", type: "object_type" }

/**
 * Parses the body of a write. A write with no body at all (`curl -X POST …/claim`) means "no
 * fields", not a wrong media type: it travels as `{}`; any other body without a content type is
 * left to the library's 415.
 */
const parseBody = (text: string, type: string | null): { value: object; impliedJson: boolean } => {
  if (type === null) return { value: {}, impliedJson: text.trim() === "" }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw malformedJson(text, cause)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw validationError([NOT_AN_OBJECT])
  return { value, impliedJson: false }
}

/**
 * A form-encoded body (RFC 8058 one-click unsubscribe) as the object a JSON body would be: each
 * name to its value, or its values when repeated. Null-prototype, like the query below.
 */
const formOf = (text: string): object => {
  const form: Record<string, string | Array<string>> = Object.create(null)
  new URLSearchParams(text).forEach((value, name) => {
    const previous = form[name]
    form[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  })
  return form
}

/**
 * The query string as the library reads it from `req.query` (each name to its values). Its own
 * parser collects them in a `{}` and threw on names an object inherits (`?constructor=1`,
 * `?__proto__=1`: a 500); a null-prototype object has none.
 */
const queryOf = (url: URL): Record<string, Array<string>> => {
  const query: Record<string, Array<string>> = Object.create(null)
  url.searchParams.forEach((value, name) => {
    query[name] = [...(query[name] ?? []), value]
  })
  return query
}

/**
 * The request as trpc-to-openapi's node handler reads it: a `Request` (so it takes the web paths
 * for content type and abort signal) whose URL is relative to the base path and whose `body` is
 * the parsed JSON, as its own fetch adapter presents it. A body is read only for a known route,
 * with a JSON (or no) content type, and, unless the procedure is public, once the key is admitted:
 * a stranger's body is never read. Refusals are thrown as TRPCErrors.
 */
const libraryRequest = async (
  req: Request,
  ctx: RequestContext,
  { endpoint, routeOf, routes, maxBodyBytes }: LibraryOptions
): Promise<Request> => {
  const url = req.url.replace(endpoint, "")
  // A path no route of this method takes: 405 naming the methods it has, or 404 naming the nearest
  // route. (The library would answer 404 to both; HEAD it answers itself, as a warm-up.)
  const meta = req.method === "HEAD" ? undefined : routeOf(req.method, new URL(url).pathname)
  if (req.method !== "HEAD" && meta === undefined) throw routes.refusalOf(req.method, new URL(req.url).pathname)
  let query: Record<string, Array<string>> | undefined
  const withUrl = () =>
    new Proxy(req, {
      get: (target, prop) =>
        prop === "url"
          ? url
          : prop === "query"
            ? (query ??= queryOf(new URL(req.url)))
            : Reflect.get(target, prop, target)
    })
  const type = req.headers.get("content-type")
  const isForm = type?.startsWith(FORM_TYPE) ?? false
  // The library answers these itself (415) without looking at the body.
  if (meta === undefined || BODYLESS.has(req.method) || (type !== null && !type.includes(JSON_TYPE) && !isForm))
    return withUrl()
  // A form is read only where the route declares it; elsewhere the library answers 415.
  if (isForm && !(meta.openapi?.contentTypes ?? []).includes(FORM_TYPE)) return withUrl()
  await admitFor(ctx, meta.scope)

  const text = await readBody(req, maxBodyBytes)
  const { value, impliedJson } = isForm ? { value: formOf(text), impliedJson: true } : parseBody(text, type)
  const headers = impliedJson ? new Headers(req.headers) : req.headers
  if (impliedJson) headers.set("content-type", JSON_TYPE)
  return new Proxy(req, {
    get: (target, prop) => {
      if (prop === "url") return url
      if (prop === "headers") return headers
      if (prop === "body") return value
      return Reflect.get(target, prop, target)
    }
  })
}

/** Headers of every answer that is a page, a redirect or a file: never cached, never framed or sniffed. */
const NOT_JSON_HEADERS = { "cache-control": "no-store", "x-content-type-options": "nosniff" }

/**
 * A success whose procedure declares it is not JSON (`meta.response`): the output, as core built
 * it, becomes a 302 to its `location`, an HTML page, or a file. Nothing is decided here.
 */
const asResponse = (kind: ResponseKind, body: string | undefined, headers: Headers): Response => {
  const output = JSON.parse(body ?? "{}") as { location?: string; html?: string; body_base64?: string }
  for (const [name, value] of Object.entries(NOT_JSON_HEADERS)) headers.set(name, value)
  switch (kind.kind) {
    case "redirect":
      headers.delete("content-type")
      headers.set("location", output.location!)
      // The tracked link's token stays with us, not in the target's Referer.
      headers.set("referrer-policy", "no-referrer")
      return new Response(null, { status: 302, headers })
    case "html":
      headers.set("content-type", "text/html; charset=utf-8")
      headers.set(
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
      )
      return new Response(output.html, { status: 200, headers })
    case "file":
      headers.set("content-type", kind.contentType)
      return new Response(Buffer.from(output.body_base64 ?? "", "base64"), { status: 200, headers })
  }
}

/**
 * Serves a router's OpenAPI routes with web-standard Request/Response. The library's node handler
 * is built once per router (it compiles a regular expression per route; its fetch adapter rebuilds
 * that table on every request). Its error body is replaced by core's problem mapping, and the
 * context's response headers (rate limit, replay marker) go on every response, errors included.
 */
export const createRestHandler = ({
  runtime,
  router,
  endpoint,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  routes = createRouteIndex([{ base: endpoint, router }])
}: RestHandlerOptions) => {
  const successStatus = new Map<string, number>()
  for (const { path, meta } of catalogueOf(router))
    if (meta.successStatus !== undefined) successStatus.set(path, meta.successStatus)

  const procedureAt = createProcedureCache(router)
  const routeOf: RouteOf = (method, path) =>
    procedureAt(method as OpenApiMethod, normalizePath(path))?.procedure?.procedure._def.meta as
      ProcedureMeta | undefined

  const exchanges = new WeakMap<object, Exchange>()
  const exchangeOf = (req: unknown) => exchanges.get(req as object)!
  const handle = createOpenApiNodeHttpHandler<AnyRouter, IncomingMessage, ServerResponse>({
    router,
    createContext: ({ req }) => exchangeOf(req).ctx,
    responseMeta: ({ paths, errors }) =>
      errors.length === 0 && paths?.[0] !== undefined ? { status: successStatus.get(paths[0]) ?? 200 } : {},
    onError: ({ error, req }) => {
      exchangeOf(req).failure = error
    }
  })

  /** Runs the library's handler against a minimal response that collects status and body. */
  const dispatch = (req: Request) =>
    new Promise<{ status: number; body: string | undefined }>((resolve, reject) => {
      let status = 200
      const res = {
        setHeader: () => undefined,
        get statusCode() {
          return status
        },
        set statusCode(code: number) {
          status = code
        },
        end: (body?: string) => resolve({ status, body })
      }
      handle(req as unknown as IncomingMessage, res as unknown as ServerResponse).catch(reject)
    })

  return async (incoming: Request, init: RestRequestInit): Promise<Response> => {
    const ctx = requestContextFromHeaders(runtime, incoming.headers, {
      requestId: init.requestId,
      signal: incoming.signal,
      peerAddress: init.peerAddress
    })
    const exchange: Exchange = { ctx }
    const headers = ctx.resHeaders
    headers.set("content-type", JSON_TYPE)
    try {
      const req = await libraryRequest(incoming, ctx, { endpoint, routeOf, routes, maxBodyBytes })
      exchanges.set(req, exchange)
      const { status, body } = await dispatch(req)
      if (exchange.failure === undefined) {
        const kind = routeOf(incoming.method, new URL(req.url).pathname)?.response
        return kind === undefined ? new FastResponse(body, { status, headers }) : asResponse(kind, body, headers)
      }
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error
      exchange.failure = error
    }
    // A key admitted without its count (`admitFor`) and refused before its call still counts once.
    await settleAdmission(ctx).catch((error: unknown) => {
      if (!(error instanceof TRPCError)) throw error
      exchange.failure = error
    })

    const problem = problemOf(exchange.failure, init.requestId)
    if (problem.status >= 500) init.onInternalError?.(exchange.failure)
    return problemResponse(problem, headers)
  }
}

/**
 * An error response: the problem's body and headers, on top of `headers` (rate limit, request id).
 * JSON answers are srvx's `FastResponse`, which a Node server writes as the string it holds; a web
 * `Response` would wrap it in a stream to be read back chunk by chunk.
 */
export const problemResponse = (problem: Problem, headers = new Headers()): Response => {
  headers.set("content-type", JSON_TYPE)
  for (const [name, value] of Object.entries(problem.headers ?? {})) headers.set(name, value)
  return new FastResponse(JSON.stringify(problem.body), { status: problem.status, headers })
}
