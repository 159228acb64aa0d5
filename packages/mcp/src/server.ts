import { closest, type RequestContext } from "@fidelis/core"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"
import { callTool, type CallOutcome } from "./call.js"
import { IDEMPOTENCY_ARGUMENT, type CatalogEntry } from "./catalog.js"
import type { FixtureTool } from "./conformance-fixtures.js"

export const SERVER_NAME = "fidelis"
export const SERVER_VERSION = "0.1.0"

/** Names the caller's tools by area (the procedures' OpenAPI tags), so it stays true as tools are added. */
const instructionsFor = (tools: ReadonlyArray<CatalogEntry>): string => {
  const areas = new Map<string, string[]>()
  for (const { meta, tool } of tools) {
    const area = meta.openapi?.tags?.[0] ?? "Other"
    areas.set(area, [...(areas.get(area) ?? []), tool.name])
  }
  const lines = [...areas].map(([area, names]) => `- ${area}: ${names.join(", ")}`)
  return [
    "Fidelis customer-loyalty platform: clients, points and more for the company that owns the API key.",
    ...lines,
    "Ids are UUID strings returned by earlier calls (e.g. list_clients).",
    `Tools that accept ${IDEMPOTENCY_ARGUMENT} apply once per key: reuse the same key when retrying after a failure.`,
    "A refused call returns isError with the reason; fix the arguments it names and call again."
  ].join("\n")
}

/** tools/list's answer and the instructions, once per catalogue (`catalogFor` hands out the same array). */
const described = new WeakMap<ReadonlyArray<CatalogEntry>, { readonly tools: Tool[]; readonly instructions: string }>()

const descriptionOf = (tools: ReadonlyArray<CatalogEntry>) => {
  let description = described.get(tools)
  if (description === undefined) {
    description = { tools: tools.map((entry) => entry.tool), instructions: instructionsFor(tools) }
    described.set(tools, description)
  }
  return description
}

/**
 * tools/call registered under a schema that takes any params, so the SDK's Server checks them
 * itself and answers -32602 Invalid params. Under CallToolRequestSchema the dispatcher parses
 * first, and a non-object `arguments` escapes as a ZodError answered -32603 Internal error
 * (modelcontextprotocol/typescript-sdk#2284).
 */
const AnyToolCall = z.object({ method: z.literal("tools/call"), params: z.unknown() })

/** A refusal that a tool result cannot carry (401/403/429/5xx); the handler turns it into the HTTP response. */
export type Escalate = (outcome: Extract<CallOutcome, { kind: "http" }>) => void

/**
 * One MCP server per HTTP request (stateless mode): it serves `tools`, the catalog of the principal
 * the request authenticated as, and runs every call in that request's context. `fixtures` are the
 * conformance suite's test tools, empty outside the conformance run.
 */
export const createServer = (
  ctx: RequestContext,
  tools: ReadonlyArray<CatalogEntry>,
  fixtures: ReadonlyArray<FixtureTool>,
  escalate: Escalate
): Server => {
  const { tools: listed, instructions } = descriptionOf(tools)
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: fixtures.length === 0 ? listed : [...listed, ...fixtures.map((fixture) => fixture.tool)]
  }))
  server.setRequestHandler(AnyToolCall, async (unchecked) => {
    // The Server's own tools/call wrapper has checked the request by now; this only types it.
    const { name, arguments: args = {} } = CallToolRequestSchema.parse(unchecked).params
    const fixture = fixtures.find((candidate) => candidate.tool.name === name)
    if (fixture !== undefined) return fixture.call(args)
    const entry = tools.find((candidate) => candidate.tool.name === name)
    // Tools outside the caller's catalog are reported as unknown, never as forbidden: no probing.
    if (entry === undefined) {
      const nearest = closest(
        name,
        tools.map((candidate) => candidate.tool.name)
      )
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool ${name} not found${nearest === undefined ? "" : `; did you mean ${nearest}?`}`,
        { code: "ROUTE_NOT_FOUND", request_id: ctx.requestId }
      )
    }
    const outcome = await callTool(entry, args, ctx)
    if (outcome.kind === "result") return outcome.result
    escalate(outcome)
    throw new McpError(ErrorCode.InternalError, "Request refused")
  })
  return server
}
