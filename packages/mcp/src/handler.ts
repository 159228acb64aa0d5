import {
  admit,
  Config,
  countCall,
  DEFAULT_MAX_BODY_BYTES,
  malformedJson,
  problemOf,
  readBody,
  requestContextFromHeaders,
  type CoreRuntime,
  type ErrorCode,
  type Principal,
  type Problem,
  type RequestContext
} from "@fidelis/core"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { TRPCError } from "@trpc/server"
import { catalogFor } from "./catalog.js"
import { CONFORMANCE_FIXTURES } from "./conformance-fixtures.js"
import { corsHeaders, isAllowedOrigin, preflight } from "./cors.js"
import { annotateErrors } from "./errors.js"
import { createServer, type Escalate } from "./server.js"

export interface McpHandlerOptions {
  readonly runtime: CoreRuntime
  /**
   * Browser origins allowed to call the tool server, compared exactly. Requests without an Origin
   * header (every non-browser MCP client) are always allowed, and so are pages the server itself
   * serves on a loopback host; with no list, no other browser origin is.
   */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** Lists the official conformance suite's fixture tools too; for the conformance run only. */
  readonly conformanceFixtures?: boolean
  /** Largest request body read, in bytes; larger ones are refused with 413. */
  readonly maxBodyBytes?: number
}

interface McpRequestInit {
  readonly requestId: string
  /** Called with the cause of a 5xx, so the server logs it against the request id. */
  readonly onInternalError?: (error: unknown) => void
  /** The TCP peer, for the per-address budgets (failed key authentications count per client address). */
  readonly peerAddress?: string | undefined
}

export type McpHandler = (req: Request, init: McpRequestInit) => Promise<Response>

const json = (status: number, body: unknown, headers: HeadersInit = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...headers, "Content-Type": "application/json" } })

/**
 * Transport-level refusals use JSON-RPC's error envelope, as the SDK's own transport does, with the
 * machine code and request id every error body carries in its `data`.
 */
const jsonRpcError = (
  status: number,
  message: string,
  data: { readonly code: ErrorCode; readonly request_id: string },
  headers: HeadersInit = {},
  rpcCode = -32000
) => json(status, { jsonrpc: "2.0", error: { code: rpcCode, message, data }, id: null }, headers)

/**
 * Messages one JSON-RPC batch may carry. MCP dropped batches in 2025-06-18 and the SDK client never
 * sends one; 2025-03-26 clients may, with a few messages. Ten bounds an answer at ten tool lists
 * (about 1 MB with a company key, 2 MB with an admin's), where the SDK's own cap of 100 let 5 KB
 * of request ask for 10-21 MB.
 */
const MAX_BATCH_MESSAGES = 10

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** The first MCP version without JSON-RPC batches. */
const BATCHES_REMOVED = "2025-06-18"

/**
 * The MCP version a request speaks: its `Mcp-Protocol-Version`, else the one its initialize asks for,
 * else 2025-03-26, which the transport spec tells a server to assume without the header.
 */
const protocolVersionOf = (headers: Headers, messages: ReadonlyArray<unknown>): string => {
  const initialize = messages.find((message) => isRecord(message) && message["method"] === "initialize")
  const params = isRecord(initialize) && isRecord(initialize["params"]) ? initialize["params"] : {}
  const asked = typeof params["protocolVersion"] === "string" ? params["protocolVersion"] : undefined
  return headers.get("mcp-protocol-version") ?? asked ?? "2025-03-26"
}

/**
 * Why a batch is refused whole (JSON-RPC -32600), before any of its messages is counted or runs: JSON-RPC
 * 2.0 answers an empty one so, the request's MCP version has no batches (dates compare as text), or it is
 * past `MAX_BATCH_MESSAGES`.
 */
const batchRefusal = (headers: Headers, messages: unknown): string | undefined => {
  if (!Array.isArray(messages)) return undefined
  if (messages.length === 0) return "the batch is empty: send at least one message"
  const version = protocolVersionOf(headers, messages)
  if (version >= BATCHES_REMOVED) {
    return `MCP ${version} has no JSON-RPC batches (removed in ${BATCHES_REMOVED}): send one message per request`
  }
  if (messages.length > MAX_BATCH_MESSAGES) {
    return (
      `a batch carries at most ${MAX_BATCH_MESSAGES} messages; this one has ${messages.length}: ` +
      "send them in smaller batches or one by one"
    )
  }
  return undefined
}

/**
 * Counts every message of the request but its tools/call, whose procedure calls count themselves,
 * before any of them runs: a batch costs what its messages would cost as requests, and one past the
 * budget refuses the request with 429. Counted together, so the limiter takes them in one round trip.
 */
const countMessages = async (ctx: RequestContext, messages: unknown) => {
  const uncounted = (Array.isArray(messages) ? messages : [messages]).filter(
    (message) => !(isRecord(message) && message["method"] === "tools/call")
  )
  const counts = await Promise.allSettled(uncounted.map(() => countCall(ctx)))
  const refused = counts.find((outcome) => outcome.status === "rejected")
  if (refused !== undefined) throw refused.reason
}

/** The words of a problem's `detail`: itself, or the message a code-and-message detail (503) carries. */
const wordsOf = (detail: unknown): string =>
  typeof detail === "string"
    ? detail
    : isRecord(detail) && typeof detail["message"] === "string"
      ? detail["message"]
      : JSON.stringify(detail)

/** The id of a request that is one JSON-RPC request; null for a batch or a body not read, as JSON-RPC has it. */
const idOf = (messages: unknown): string | number | null => {
  const id = isRecord(messages) ? messages["id"] : undefined
  return typeof id === "string" || typeof id === "number" ? id : null
}

/**
 * A refusal that only the HTTP status can carry (401, 403, 413, 429, 5xx) as a JSON-RPC error, so an MCP
 * client reads it like any other: the status and headers (challenge, Retry-After) stay, and `data` is the
 * error body every surface answers (`detail`, `code`, `request_id`).
 */
const problemResponse = ({ status, body, headers }: Problem, id: string | number | null = null) =>
  json(status, { jsonrpc: "2.0", error: { code: -32000, message: wordsOf(body.detail), data: body }, id }, headers)

/** Adds core's response headers (rate limit, Retry-After) to whatever the request produced. */
const withHeaders = (response: Response, extra: Headers): Response => {
  const headers = new Headers(response.headers)
  extra.forEach((value, name) => headers.set(name, value))
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/**
 * The body's JSON-RPC messages. Malformed JSON goes on as the raw text: the SDK refuses it with its
 * own -32700, after its Accept and Content-Type checks, whose message then says where it broke.
 */
const messagesOf = (text: string): { messages: unknown; parseError?: string } => {
  try {
    return { messages: JSON.parse(text) }
  } catch (cause) {
    return { messages: text, parseError: `Parse error: ${malformedJson(text, cause).message}` }
  }
}

/**
 * The tool server at `/mcp` (spec 4.1): stateless Streamable HTTP with JSON responses. Each POST
 * is authenticated and counted before any MCP message is read, so those refusals are HTTP statuses
 * (with JSON-RPC error bodies); every message after the first counts once more (a tools/call when its
 * procedure runs).
 */
export const createMcpHandler = ({
  runtime,
  allowedOrigins = [],
  conformanceFixtures = false,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES
}: McpHandlerOptions): McpHandler => {
  const origins = new Set(allowedOrigins)
  const fixtures = conformanceFixtures ? CONFORMANCE_FIXTURES : []

  const answer: McpHandler = async (req, { requestId, onInternalError, peerAddress }) => {
    // Stateless: no server-initiated stream to GET and no session to DELETE.
    if (req.method !== "POST") {
      return jsonRpcError(
        405,
        `${req.method} is not allowed on /mcp; use POST (this server is stateless: no stream to GET)`,
        { code: "METHOD_NOT_ALLOWED", request_id: requestId },
        { Allow: "POST" }
      )
    }

    const ctx = requestContextFromHeaders(runtime, req.headers, { requestId, signal: req.signal, peerAddress })
    let principal: Principal
    let body: ReturnType<typeof messagesOf>
    try {
      principal = await admit(ctx)
      body = messagesOf(await readBody(req, maxBodyBytes))
      const refusal = batchRefusal(req.headers, body.messages)
      if (refusal !== undefined) {
        const data = { code: "BAD_REQUEST", request_id: requestId } as const
        return withHeaders(jsonRpcError(400, `Invalid Request: ${refusal}`, data, {}, -32600), ctx.resHeaders)
      }
      await countMessages(ctx, body.messages)
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error
      // A 401's challenge is among the context's headers (core's `apiKeyChallenge`).
      return withHeaders(problemResponse(problemOf(error, requestId)), ctx.resHeaders)
    }

    const { idempotencyTtlSeconds } = await runtime.runPromise(Config)
    let escalated: Parameters<Escalate>[0] | undefined
    const server = createServer(ctx, catalogFor(principal, idempotencyTtlSeconds), fixtures, (outcome) => {
      escalated ??= outcome
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true
    })
    try {
      await server.connect(transport)
      const response = await transport.handleRequest(req, { parsedBody: body.messages })
      if (escalated === undefined) {
        return withHeaders(await annotateErrors(response, requestId, body.parseError), ctx.resHeaders)
      }
      if (escalated.problem.status >= 500) onInternalError?.(escalated.cause)
      return withHeaders(problemResponse(escalated.problem, idOf(body.messages)), ctx.resHeaders)
    } finally {
      // Closing the server closes its transport too.
      await server.close()
    }
  }

  /** A browser's request: from an allowed origin only, with CORS headers on every answer and a preflight. */
  return async (req, init) => {
    const origin = req.headers.get("origin")
    if (origin === null) return answer(req, init)
    if (!isAllowedOrigin(origins, origin, req.headers.get("host"))) {
      return jsonRpcError(403, `Origin ${origin} is not allowed`, { code: "FORBIDDEN", request_id: init.requestId })
    }
    if (req.method === "OPTIONS") return preflight(origin)
    return withHeaders(await answer(req, init), new Headers(corsHeaders(origin)))
  }
}
