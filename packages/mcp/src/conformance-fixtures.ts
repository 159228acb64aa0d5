import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"

/**
 * TEST FIXTURES, not product tools. The official conformance suite checks some protocol behaviour
 * through tools of its own naming; they are listed only when the server is started with
 * FIDELIS_MCP_CONFORMANCE_FIXTURES=1, which only test/conformance/run.ts sets, so a real key's
 * catalog stays exactly the tools of spec 4.2.
 */
export interface FixtureTool {
  readonly tool: Tool
  readonly call: (args: Record<string, unknown>) => CallToolResult
}

/**
 * The `json-schema-2020-12` scenario (SEP-1613) lists this tool and checks that `$schema`, `$defs`
 * and `additionalProperties` reach the client untouched; name and schema are the suite's own.
 */
const jsonSchema202012Tool: FixtureTool = {
  tool: {
    name: "json_schema_2020_12_tool",
    description: "Conformance test fixture: a tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } }
      },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false
    }
  },
  // A listed tool must also answer a call; echoing the arguments is all a fixture needs.
  call: (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] })
}

export const CONFORMANCE_FIXTURES: ReadonlyArray<FixtureTool> = [jsonSchema202012Tool]
