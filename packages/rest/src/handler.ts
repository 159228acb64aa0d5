import { problemOf, requestContextFromHeaders, type CoreRuntime, type ProcedureMeta, type RequestContext } from "@fidelis/core"
import { TRPCError, type AnyRouter } from "@trpc/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi"

export interface RestHandlerOptions {
  readonly runtime: CoreRuntime
  /** The router whose `meta.openapi` routes this base path serves. */
  readonly router: AnyRouter
  /** Base path the routes live under, e.g. `/api/v1/public`. */
  readonly endpoint: `/${string}`
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

/** The parsed body the library reads, or the reason there is none. */
type Body = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly cause: unknown }

const readBody = async (req: Request): Promise<{ body: Body; impliedJson: boolean }> => {
  const type = req.headers.get("content-type")
  const text = await req.text()
  // A write with no body at all (`curl -X POST …/claim`) means "no fields", not a wrong media type:
  // it travels as `{}`. A body without a JSON content type is still refused with 415.
  if (type === null && text.trim() === "") return { body: { ok: true, value: {} }, impliedJson: true }
  if (type?.includes(JSON_TYPE) !== true) return { body: { ok: true, value: text }, impliedJson: false }
  try {
    return { body: { ok: true, value: JSON.parse(text) as unknown }, impliedJson: false }
  } catch (cause) {
    return { body: { ok: false, cause }, impliedJson: false }
  }
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
 * the parsed JSON, as its own fetch adapter presents it.
 */
const libraryRequest = async (req: Request, endpoint: string): Promise<Request> => {
  const url = req.url.replace(endpoint, "")
  if (req.method === "GET" || req.method === "HEAD" || req.method === "DELETE") {
    let query: Record<string, Array<string>> | undefined
    return new Proxy(req, {
      get: (target, prop) =>
        prop === "url" ? url : prop === "query" ? (query ??= queryOf(new URL(req.url))) : Reflect.get(target, prop, target)
    })
  }
  const { body, impliedJson } = await readBody(req)
  const headers = impliedJson ? new Headers([...req.headers, ["content-type", JSON_TYPE]]) : req.headers
  return new Proxy(req, {
    get: (target, prop) => {
      if (prop === "url") return url
      if (prop === "headers") return headers
      if (prop !== "body") return Reflect.get(target, prop, target)
      if (body.ok) return body.value
      throw new TRPCError({ code: "PARSE_ERROR", message: "Failed to parse request body", cause: body.cause })
    }
  })
}

/**
 * Serves a router's OpenAPI routes with web-standard Request/Response. The library's node handler
 * is built once per router (it compiles a regular expression per route; its fetch adapter rebuilds
 * that table on every request). Its error body is replaced by core's problem mapping, and the
 * context's response headers (rate limit, replay marker) go on every response, errors included.
 */
export const createRestHandler = ({ runtime, router, endpoint }: RestHandlerOptions) => {
  const successStatus = new Map<string, number>()
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, { _def: { meta?: ProcedureMeta } }>)) {
    const status = procedure._def.meta?.successStatus
    if (status !== undefined) successStatus.set(path, status)
  }

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
    const req = await libraryRequest(incoming, endpoint)
    const ctx = requestContextFromHeaders(runtime, incoming.headers, { requestId: init.requestId, signal: incoming.signal })
    const exchange: Exchange = { ctx }
    exchanges.set(req, exchange)
    const { status, body } = await dispatch(req)

    const headers = ctx.resHeaders
    headers.set("content-type", JSON_TYPE)
    if (exchange.failure === undefined) return new Response(body, { status, headers })

    const problem = problemOf(exchange.failure)
    if (problem.status >= 500) init.onInternalError?.(exchange.failure)
    return new Response(JSON.stringify(problem.body), { status: problem.status, headers })
  }
}
