import {
  admit,
  catalogueOf,
  DEFAULT_MAX_BODY_BYTES,
  problemOf,
  readBody,
  requestContextFromHeaders,
  validationError,
  type CoreRuntime,
  type ProcedureMeta,
  type RequestContext
} from "@fidelis/core"
import { TRPCError, type AnyRouter } from "@trpc/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createOpenApiNodeHttpHandler, createProcedureCache, normalizePath, type OpenApiMethod } from "trpc-to-openapi"

export interface RestHandlerOptions {
  readonly runtime: CoreRuntime
  /** The router whose `meta.openapi` routes this base path serves. */
  readonly router: AnyRouter
  /** Base path the routes live under, e.g. `/api/v1/public`. */
  readonly endpoint: `/${string}`
  /** Largest request body read, in bytes; larger ones are refused with 413. */
  readonly maxBodyBytes?: number
}

export interface RestRequestInit {
  readonly requestId: string
  /** Called with every 5xx so the server logs it against the request id. */
  readonly onInternalError?: (error: TRPCError) => void
}

const JSON_TYPE = "application/json"

/** What one request leaves behind for the response: its context and the error it ended with. */
interface Exchange {
  readonly ctx: RequestContext
  failure?: TRPCError
}

/** Procedures' metadata by REST route; the library matches the same table again when it runs. */
type RouteOf = (method: string, path: string) => ProcedureMeta | undefined

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
    throw new TRPCError({ code: "PARSE_ERROR", message: "Failed to parse request body", cause })
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw validationError([NOT_AN_OBJECT])
  return { value, impliedJson: false }
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
  { endpoint, routeOf, maxBodyBytes }: { endpoint: string; routeOf: RouteOf; maxBodyBytes: number }
): Promise<Request> => {
  const url = req.url.replace(endpoint, "")
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
  // The library answers these itself (404, 415) without looking at the body.
  if (BODYLESS.has(req.method) || (type !== null && !type.includes(JSON_TYPE))) return withUrl()
  const meta = routeOf(req.method, new URL(url).pathname)
  if (meta === undefined) return withUrl()
  if (meta.scope !== "public") await admit(ctx)

  const { value, impliedJson } = parseBody(await readBody(req, maxBodyBytes), type)
  const headers = impliedJson ? new Headers([...req.headers, ["content-type", JSON_TYPE]]) : req.headers
  return new Proxy(req, {
    get: (target, prop) => {
      if (prop === "url") return url
      if (prop === "headers") return headers
      if (prop === "body") return value
      return Reflect.get(target, prop, target)
    }
  })
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
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES
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
      signal: incoming.signal
    })
    const exchange: Exchange = { ctx }
    const headers = ctx.resHeaders
    headers.set("content-type", JSON_TYPE)
    try {
      const req = await libraryRequest(incoming, ctx, { endpoint, routeOf, maxBodyBytes })
      exchanges.set(req, exchange)
      const { status, body } = await dispatch(req)
      if (exchange.failure === undefined) return new Response(body, { status, headers })
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error
      exchange.failure = error
    }

    const problem = problemOf(exchange.failure)
    if (problem.status >= 500) init.onInternalError?.(exchange.failure)
    for (const [name, value] of Object.entries(problem.headers ?? {})) headers.set(name, value)
    return new Response(JSON.stringify(problem.body), { status: problem.status, headers })
  }
}
