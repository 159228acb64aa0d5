import {
  createAppCaller,
  errorKindOfStatus,
  problemOf,
  procedureAt,
  type Problem,
  type ProblemBody,
  type RequestContext,
  type ValidationIssue
} from "@fidelis/core"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { getTRPCErrorFromUnknown } from "@trpc/server"
import { IDEMPOTENCY_ARGUMENT, type CatalogEntry } from "./catalog.js"

/** `_meta` key telling the assistant a result repeats a stored one (REST's `Idempotent-Replayed`). */
const REPLAYED_META = "fidelis/idempotent-replayed"

/** What a call produced: a tool result, or a refusal only the HTTP status can carry. */
export type CallOutcome =
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "http"; readonly problem: Problem; readonly cause: unknown }

/** `_meta` key of a refused call's error body, the one REST answers (`detail`, `code`, `request_id`). */
const ERROR_META = "fidelis/error"

/**
 * A refused call as a result the assistant can act on: the reason in words, ending with the
 * machine code and request id, and the error body REST would answer in `_meta`.
 */
const toolError = (text: string, body: ProblemBody): CallToolResult => ({
  content: [{ type: "text", text: `${text} [code ${body.code}, request id ${body.request_id}]` }],
  isError: true,
  _meta: { [ERROR_META]: body }
})

/**
 * REST roots a validation `loc` where the field travelled (body, query, path); an assistant only
 * knows argument names, and the idempotency header is an argument here.
 */
const argumentOf = (loc: ValidationIssue["loc"]): string => {
  const [root, ...rest] = loc
  if (root === "header") return IDEMPOTENCY_ARGUMENT
  return rest.length > 0 ? rest.join(".") : "arguments"
}

const messageOf = ({ status, body: { detail } }: Problem): string => {
  if (status === 422 && Array.isArray(detail)) {
    const issues = (detail as ValidationIssue[]).map(
      (issue) => `${argumentOf(issue.loc)}: ${issue.msg} (${issue.type})`
    )
    return `Invalid arguments; nothing was changed. ${issues.join("; ")}`
  }
  if (status === 409 && typeof detail === "object" && detail !== null && "code" in detail && "message" in detail) {
    return `Refused (${String(detail.code)}): ${String(detail.message)}`
  }
  const text = typeof detail === "string" ? detail : JSON.stringify(detail)
  return status === 404 ? `Not found: ${text}` : text
}

/** Splits the MCP-only idempotency argument from the procedure's own input. */
const splitArguments = (entry: CatalogEntry, args: Record<string, unknown>) => {
  if (!entry.meta.idempotent || !(IDEMPOTENCY_ARGUMENT in args)) return { input: args, idempotencyKey: undefined }
  const { [IDEMPOTENCY_ARGUMENT]: idempotencyKey, ...input } = args
  return { input, idempotencyKey }
}

/**
 * Runs one tool through the router with the request's context: same credentials and key lookup;
 * the call counts against the rate limit, the request's own count covering its first call.
 */
export const callTool = async (
  entry: CatalogEntry,
  args: Record<string, unknown>,
  requestCtx: RequestContext
): Promise<CallOutcome> => {
  const { input, idempotencyKey } = splitArguments(entry, args)
  if (idempotencyKey !== undefined && typeof idempotencyKey !== "string") {
    const issue = { loc: ["header", IDEMPOTENCY_ARGUMENT], msg: "Must be a string", type: "string_type" }
    const body: ProblemBody = { detail: [issue], code: "VALIDATION_FAILED", request_id: requestCtx.requestId }
    return { kind: "result", result: toolError(messageOf({ status: 422, body }), body) }
  }
  // The key comes only from the arguments: one HTTP request may carry several calls, and a header
  // would apply to them all. Own response headers, since a replay marker belongs to this call.
  const ctx: RequestContext = { ...requestCtx, idempotencyKey, resHeaders: new Headers() }
  try {
    // tRPC's own caller, so middleware and validation are REST's own.
    const value = await procedureAt(createAppCaller(ctx), entry.path)(input)
    const structuredContent = entry.structure?.(value)
    const replayed = ctx.resHeaders.get("Idempotent-Replayed") === "true"
    return {
      kind: "result",
      result: {
        content: [{ type: "text", text: JSON.stringify(structuredContent ?? value ?? null) }],
        ...(structuredContent !== undefined && { structuredContent }),
        ...(replayed && { _meta: { [REPLAYED_META]: true } })
      }
    }
  } catch (cause) {
    const problem = problemOf(getTRPCErrorFromUnknown(cause), ctx.requestId)
    return errorKindOfStatus(problem.status)?.mcp === "tool-result"
      ? { kind: "result", result: toolError(messageOf(problem), problem.body) }
      : { kind: "http", problem, cause }
  }
}
