import type { ErrorCode } from "@fidelis/core"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** JSON-RPC's own error codes (and the SDK's -32000, by its HTTP status) as core's machine codes. */
const BY_JSON_RPC_CODE: Readonly<Record<number, ErrorCode>> = {
  [-32700]: "MALFORMED_JSON",
  [-32600]: "BAD_REQUEST",
  [-32601]: "ROUTE_NOT_FOUND",
  [-32602]: "VALIDATION_FAILED",
  [-32603]: "INTERNAL_ERROR"
}

const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  403: "FORBIDDEN",
  404: "ROUTE_NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE"
}

const codeOf = (jsonRpcCode: unknown, status: number): ErrorCode =>
  (typeof jsonRpcCode === "number" ? BY_JSON_RPC_CODE[jsonRpcCode] : undefined) ??
  BY_STATUS[status] ??
  (status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST")

/**
 * A JSON-RPC error object with core's machine `code` and the request's id in its `data`, as every
 * error body carries them; a `data` already holding a code (the server's own errors) keeps it.
 */
export const withErrorData = (error: Record<string, unknown>, status: number, requestId: string) => {
  const data = isRecord(error["data"]) ? error["data"] : error["data"] === undefined ? {} : { detail: error["data"] }
  return { ...error, data: { code: codeOf(error["code"], status), request_id: requestId, ...data } }
}

/**
 * The SDK's `McpError` writes its code into its message (`MCP error -32602: Tool x not found`), which
 * the error object's `code` already says; a client's own McpError adds it again when it reads one.
 */
const SDK_PREFIX = /^MCP error -?\d+: /

const withoutSdkPrefix = (message: unknown) => (typeof message === "string" ? message.replace(SDK_PREFIX, "") : message)

const NOT_JSON_RPC =
  'Invalid Request: not a JSON-RPC 2.0 message; a request is {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, ' +
  'a notification the same without "id"'

/**
 * Adds the machine code and request id to every JSON-RPC error of a JSON response (the SDK's own
 * refusals: unknown method, invalid params, wrong media type), without the SDK's prefix on the message.
 * A -32700 is a parse error only when the body was not JSON (`parseError` says where it broke); for
 * JSON that is not JSON-RPC it becomes -32600, Invalid Request, as JSON-RPC 2.0 has it.
 */
export const annotateErrors = async (response: Response, requestId: string, parseError?: string): Promise<Response> => {
  if (!response.headers.get("content-type")?.includes("application/json")) return response
  const text = await response.text()
  const rebuilt = (body: string) =>
    new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  if (!text.includes('"error"')) return rebuilt(text)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return rebuilt(text)
  }
  const annotate = (message: unknown) => {
    if (!isRecord(message) || !isRecord(message["error"])) return message
    const error = message["error"]
    // The SDK answers -32700 for a body that is not JSON-RPC too; only one that is not JSON is a parse error.
    const reworded =
      error["code"] !== -32700
        ? { ...error, message: withoutSdkPrefix(error["message"]) }
        : parseError !== undefined
          ? { ...error, message: parseError }
          : { ...error, code: -32600, message: NOT_JSON_RPC }
    return { ...message, error: withErrorData(reworded, response.status, requestId) }
  }
  return rebuilt(JSON.stringify(Array.isArray(body) ? body.map(annotate) : annotate(body)))
}
