import {
  admitFor,
  DEFAULT_MAX_BODY_BYTES,
  malformedJson,
  problemOf,
  readBody,
  requestContextFromHeaders,
  settleAdmission,
  unsupportedMediaTypeMessage,
  validationError,
  type CoreRuntime,
  type Problem,
  type ProcedureMeta,
  type RequestContext,
  type ResponseKind
} from "@fidelis/core"
import { callTRPCProcedure, TRPCError, type AnyRouter } from "@trpc/server"
import { FastResponse } from "srvx"
import { locationOf } from "./location.js"
import { createRouteTable, type Route } from "./route-table.js"
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

/** Methods whose requests' bodies are never read: their input comes from the path and the query. */
export const BODYLESS: ReadonlySet<string> = new Set(["GET", "HEAD", "DELETE"])

/**
 * The body is spread into the procedure's input (as trpc-to-openapi does), so an array would
 * arrive as one unknown key per element (a 5 MB array made 100,000 validation items). Anything but
 * an object is refused as the single item it is.
 */
const NOT_AN_OBJECT = { loc: ["body"], msg: "Input should be a JSON object", type: "object_type" }

const unsupportedMediaType = (type: string | null) =>
  new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: unsupportedMediaTypeMessage(type) })

/**
 * Parses the body of a write. A write with no body at all (`curl -X POST …/claim`) means "no
 * fields", not a wrong media type: it travels as `{}`; any other body without a content type is a
 * 415.
 */
const parseBody = (text: string, type: string | null): object => {
  if (type === null) {
    if (text.trim() === "") return {}
    throw unsupportedMediaType(type)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw malformedJson(text, cause)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw validationError([NOT_AN_OBJECT])
  if (!type.startsWith(JSON_TYPE)) throw unsupportedMediaType(type)
  return value
}

/**
 * Name-value pairs (a query string, or a form-encoded body for RFC 8058 one-click unsubscribe) as
 * the object a JSON body would be: each name to its value, or its values when repeated.
 * Null-prototype, so names an object inherits (`?constructor=1`) are plain fields.
 */
const fieldsOf = (params: URLSearchParams): Record<string, string | Array<string>> => {
  const fields: Record<string, string | Array<string>> = Object.create(null)
  params.forEach((value, name) => {
    const previous = fields[name]
    fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  })
  return fields
}

/**
 * The query string as input fields (`fieldsOf`), with a list field's single value made a list of
 * one; `__proto__` is dropped, as trpc-to-openapi's own parser dropped it.
 */
const queryOf = (url: URL, route: Route): Record<string, unknown> => {
  const query = fieldsOf(url.searchParams)
  delete query["__proto__"]
  for (const field of route.listFields) {
    const value = query[field]
    if (value !== undefined && !Array.isArray(value)) query[field] = [value]
  }
  return query
}

/**
 * The fields of a write's body. It is read only with a JSON (or no) content type, or a form where
 * the route declares one, and, unless the procedure is public, once the key is admitted: a
 * stranger's body is never read.
 */
const bodyOf = async (req: Request, ctx: RequestContext, meta: ProcedureMeta, maxBodyBytes: number) => {
  const type = req.headers.get("content-type")
  const isForm = type?.startsWith(FORM_TYPE) ?? false
  if (isForm ? !(meta.openapi?.contentTypes ?? []).includes(FORM_TYPE) : type !== null && !type.includes(JSON_TYPE))
    throw unsupportedMediaType(type)
  await admitFor(ctx, meta.scope)
  const text = await readBody(req, maxBodyBytes)
  return isForm ? fieldsOf(new URLSearchParams(text)) : parseBody(text, type)
}

/** Headers of every answer that is a page, a redirect or a file: never cached, never framed or sniffed. */
const NOT_JSON_HEADERS = { "cache-control": "no-store", "x-content-type-options": "nosniff" }

/** An HTML page under a CSP that allows nothing but its own styles and forms; 410 when its link has expired. */
const pageOf = (output: { html?: string; expired?: true }, headers: Headers) => {
  headers.set("content-type", "text/html; charset=utf-8")
  headers.set(
    "content-security-policy",
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
  )
  return new Response(output.html, { status: output.expired ? 410 : 200, headers })
}

/**
 * A success whose procedure declares it is not JSON (`meta.response`): the output, as core built
 * it, becomes a 302 to its `location`, an HTML page, or a file; a link that has expired answers
 * its page whatever the route's kind. Nothing is decided here.
 */
const asResponse = (kind: ResponseKind, body: string | undefined, headers: Headers): Response => {
  const output = JSON.parse(body ?? "{}") as {
    location?: string
    html?: string
    expired?: true
    body_base64?: string
  }
  for (const [name, value] of Object.entries(NOT_JSON_HEADERS)) headers.set(name, value)
  if (output.html !== undefined) return pageOf(output, headers)
  switch (kind.kind) {
    case "redirect":
      headers.delete("content-type")
      headers.set("location", output.location!)
      // The tracked link's token stays with us, not in the target's Referer.
      headers.set("referrer-policy", "no-referrer")
      return new Response(null, { status: 302, headers })
    case "html":
      return pageOf(output, headers)
    case "file":
      headers.set("content-type", kind.contentType)
      return new Response(Buffer.from(output.body_base64 ?? "", "base64"), { status: 200, headers })
  }
}

/**
 * Serves a router's OpenAPI routes with web-standard Request/Response: each request's route is
 * matched once, its input assembled from the path, the query or the body, and its procedure called
 * through tRPC, with the context the procedures read. trpc-to-openapi describes the routes (the
 * OpenAPI document); its request handler, which matched each request again, wrapped it and called
 * through a caller proxy, is not used (docs/decisions.md, "REST calls without trpc-to-openapi's
 * handler"). A failure becomes core's problem, and the context's response headers (rate limit,
 * replay marker) go on every response, errors included.
 */
export const createRestHandler = ({
  runtime,
  router,
  endpoint,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  routes = createRouteIndex([{ base: endpoint, router }])
}: RestHandlerOptions) => {
  const routeOf = createRouteTable(router)

  /** The call's answer; a refusal is thrown as a TRPCError. */
  const answer = async (req: Request, ctx: RequestContext): Promise<Response> => {
    const headers = ctx.resHeaders
    const url = new URL(req.url)
    const match = routeOf(req.method, url.pathname.slice(endpoint.length))
    // A path no route of this method takes: 405 naming the methods it has, or 404 naming the nearest route.
    if (match === undefined) throw routes.refusalOf(req.method, url.pathname)
    const { route, pathInput } = match
    const fields = BODYLESS.has(req.method) ? queryOf(url, route) : await bodyOf(req, ctx, route.meta, maxBodyBytes)
    const input = route.takesNoInput ? undefined : { ...fields, ...pathInput }
    const output = await callTRPCProcedure({
      router,
      path: route.path,
      type: route.type,
      ctx,
      getRawInput: async () => input,
      signal: undefined,
      batchIndex: 0
    })
    const body = JSON.stringify(output)
    if (route.meta.location !== undefined) headers.set("location", locationOf(endpoint, route.meta.location, output))
    const kind = route.meta.response
    return kind === undefined
      ? new FastResponse(body, { status: route.status, headers })
      : asResponse(kind, body, headers)
  }

  return async (incoming: Request, init: RestRequestInit): Promise<Response> => {
    const ctx = requestContextFromHeaders(runtime, incoming.headers, {
      requestId: init.requestId,
      signal: incoming.signal,
      peerAddress: init.peerAddress
    })
    ctx.resHeaders.set("content-type", JSON_TYPE)
    let failure: TRPCError
    try {
      return await answer(incoming, ctx)
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error
      failure = error
    }
    // A key admitted without its count (`admitFor`) and refused before its call still counts once.
    await settleAdmission(ctx).catch((error: unknown) => {
      if (!(error instanceof TRPCError)) throw error
      failure = error
    })

    const problem = problemOf(failure, init.requestId)
    if (problem.status >= 500) init.onInternalError?.(failure)
    return problemResponse(problem, ctx.resHeaders)
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
