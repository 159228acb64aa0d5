import { describe, expect, it } from "vitest"
import { connectMcp, createTenant, startServer, useServer, type TestServer } from "./support/index.js"
import { COMPANY_TOOLS } from "../packages/mcp/test/spec.js"

const server = useServer()

/** An MCP client as an assistant host configures it: type http, the key in X-API-Key. */
const connect = (key: string, target: TestServer = server) => connectMcp(target, key)

describe("tool server at /mcp (spec 4.1), through the SDK client", () => {
  it("a company key gets the company tools, and reads and credits points", async () => {
    const tenant = await createTenant(server)
    const client = await connect(tenant.key)
    try {
      expect(client.getServerVersion()?.name).toBe("fidelis")
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).toSorted()).toEqual(COMPANY_TOOLS)

      const created = await client.callTool({ name: "create_client", arguments: { nome: "Ana Souza" } })
      const clientId = (created.structuredContent as { id: string }).id

      const balance = await client.callTool({ name: "get_points_balance", arguments: { client_id: clientId } })
      expect(balance.structuredContent).toEqual({ client_id: clientId, balance: 0, empresa_id: tenant.empresa.id })

      const credit = { client_id: clientId, points: 120, idempotency_key: "sale-42" }
      const first = await client.callTool({ name: "credit_points", arguments: credit })
      const retry = await client.callTool({ name: "credit_points", arguments: credit })
      expect(first.structuredContent).toMatchObject({ client_id: clientId, balance: 120, credited: 120 })
      expect(retry.structuredContent).toEqual(first.structuredContent)

      const after = await client.callTool({ name: "get_points_balance", arguments: { client_id: clientId } })
      expect(after.structuredContent).toMatchObject({ balance: 120 })

      const invalid = await client.callTool({ name: "credit_points", arguments: { client_id: clientId, points: -5 } })
      expect(invalid.isError).toBe(true)
      expect(JSON.stringify(invalid.content)).toMatch(/points/)
    } finally {
      await client.close()
    }
  })

  it("another tenant's client is a not-found tool error", async () => {
    const mine = await createTenant(server)
    const theirs = await createTenant(server)
    const theirClient = await connect(theirs.key)
    const myClient = await connect(mine.key)
    try {
      const created = await theirClient.callTool({ name: "create_client", arguments: { nome: "Outro Cliente" } })
      const foreignId = (created.structuredContent as { id: string }).id
      const result = await myClient.callTool({ name: "get_points_balance", arguments: { client_id: foreignId } })
      expect(result.isError).toBe(true)
      expect(JSON.stringify(result.content)).toMatch(/not found/i)
    } finally {
      await Promise.all([theirClient.close(), myClient.close()])
    }
  })

  it("refuses missing keys (401) and accounts without API access (403) at the HTTP level", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      })
    expect((await post({})).status).toBe(401)
    const blocked = await createTenant(server, { apiAccess: false })
    expect((await post({ "x-api-key": blocked.key })).status).toBe(403)
    await expect(connect(blocked.key)).rejects.toMatchObject({
      code: 403,
      message: expect.stringMatching(/API access/)
    })
  })

  it("FIDELIS_MCP_CONFORMANCE_FIXTURES=1 adds only the conformance suite's fixture tool", async () => {
    const fixtureServer = await startServer({ env: { FIDELIS_MCP_CONFORMANCE_FIXTURES: "1" } })
    try {
      const tenant = await createTenant(fixtureServer)
      const client = await connect(tenant.key, fixtureServer)
      try {
        const { tools } = await client.listTools()
        expect(tools.map((tool) => tool.name).toSorted()).toEqual(
          [...COMPANY_TOOLS, "json_schema_2020_12_tool"].toSorted()
        )
        // What the suite's json-schema-2020-12 scenario checks survives the SDK's parsing on both ends.
        expect(tools.find((tool) => tool.name === "json_schema_2020_12_tool")?.inputSchema).toEqual({
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
          properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
          additionalProperties: false
        })
        const args = { name: "Ana", address: { city: "Recife" } }
        const echoed = await client.callTool({ name: "json_schema_2020_12_tool", arguments: args })
        expect(echoed.content).toEqual([{ type: "text", text: JSON.stringify(args) }])
      } finally {
        await client.close()
      }
    } finally {
      await fixtureServer.stop()
    }
  })

  it("GET /mcp is 405 (stateless server, no stream to open)", async () => {
    const response = await fetch(`${server.url}/mcp`, { headers: { accept: "text/event-stream" } })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })
})
