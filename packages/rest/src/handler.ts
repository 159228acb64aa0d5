import { problemOf, requestContextFromHeaders, type CoreRuntime, type ProcedureMeta } from "@fidelis/core"
import type { AnyRouter, TRPCError } from "@trpc/server"
import { createOpenApiFetchHandler } from "trpc-to-openapi"

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

/**
 * A write with no body at all (`curl -X POST …/claim`) means "no fields", not a wrong media type:
 * it travels as `{}`. A body without a JSON content type is still refused with 415.
 */
const withImpliedBody = async (req: Request): Promise<Request> => {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "DELETE") return req
  if (req.headers.get("content-type") !== null) return req
  const body = await req.text()
  const headers = new Headers(req.headers)
  if (body.trim() === "") headers.set("content-type", JSON_TYPE)
  return new Request(req.url, { method: req.method, headers, body: body.trim() === "" ? "{}" : body, signal: req.signal })
}

/**
 * Serves a router's OpenAPI routes with web-standard Request/Response. The library's own error body
 * is replaced by core's problem mapping, and the context's response headers (rate limit, replay
 * marker) are copied onto every response, errors included.
 */
export const createRestHandler = ({ runtime, router, endpoint }: RestHandlerOptions) => {
  const successStatus = new Map<string, number>()
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, { _def: { meta?: ProcedureMeta } }>)) {
    const status = procedure._def.meta?.successStatus
    if (status !== undefined) successStatus.set(path, status)
  }

  return async (incoming: Request, init: RestRequestInit): Promise<Response> => {
    const req = await withImpliedBody(incoming)
    const ctx = requestContextFromHeaders(runtime, req.headers, { requestId: init.requestId, signal: req.signal })
    let failure: TRPCError | undefined
    const res = await createOpenApiFetchHandler({
      endpoint,
      router,
      req,
      createContext: () => ctx,
      responseMeta: ({ paths, errors }) =>
        errors.length === 0 && paths?.[0] !== undefined ? { status: successStatus.get(paths[0]) ?? 200 } : {},
      onError: ({ error }) => {
        failure = error
      }
    })
    const headers = new Headers(res.headers)
    ctx.resHeaders.forEach((value, key) => headers.set(key, value))
    if (failure === undefined) return new Response(res.body, { status: res.status, headers })

    const problem = problemOf(failure)
    if (problem.status >= 500) init.onInternalError?.(failure)
    headers.set("content-type", JSON_TYPE)
    return new Response(JSON.stringify(problem.body), { status: problem.status, headers })
  }
}
