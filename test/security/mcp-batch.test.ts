import { describe, expect, it } from "vitest"
import { call, createTenant, startOfFreshWindow, useServer, type ApiResponse } from "../support/index.js"

// Review item 1: a JSON-RPC batch of 100 tools/list (5 KB) answered 10 MB for one unit of the rate
// limit. Every message of a batch now counts, and a batch carries at most 10 of them.

const LIMIT = 15
const server = useServer({ env: { FIDELIS_RATE_LIMIT_PER_MINUTE: String(LIMIT) } })

const MCP_HEADERS = { accept: "application/json, text/event-stream" }

const listTools = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list", params: {} }))

const mcp = (key: string, body: unknown): Promise<ApiResponse> =>
  call(server, "/mcp", { key, headers: MCP_HEADERS, body })

const remaining = (res: ApiResponse) => Number(res.headers.get("x-ratelimit-remaining"))

interface Listed {
  readonly result: { readonly tools: ReadonlyArray<{ readonly name: string }> }
}

describe("an MCP batch pays for every message", () => {
  it("ten tools/list cost ten units of the budget, and each still lists the company's 25 tools", async () => {
    const tenant = await createTenant(server)
    const used = await startOfFreshWindow(server, tenant.key)
    const single = await mcp(tenant.key, listTools(1)[0])
    expect(single.status).toBe(200)
    expect((single.body as Listed).result.tools).toHaveLength(25)
    expect(remaining(single)).toBe(LIMIT - used - 1)

    const batch = await mcp(tenant.key, listTools(10))
    expect(batch.status).toBe(200)
    const answers = batch.body as ReadonlyArray<Listed>
    expect(answers).toHaveLength(10)
    for (const answer of answers) expect(answer.result.tools).toHaveLength(25)
    expect(remaining(batch)).toBe(LIMIT - used - 11)

    // The budget is spent: the next batch is refused whole, before any list is built.
    const refused = await mcp(tenant.key, listTools(10))
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(refused.body.error.data).toMatchObject({
      code: "RATE_LIMIT_EXCEEDED",
      detail: expect.stringMatching(/Rate limit exceeded/)
    })
  }, 90_000)

  it("a batch of more than 10 messages is refused with JSON-RPC -32600, and nothing in it runs", async () => {
    const tenant = await createTenant(server)
    for (const key of [tenant.key, server.adminKey]) {
      const res = await mcp(key, listTools(11))
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: expect.stringMatching(/at most 10 messages; this one has 11/),
          data: { code: "BAD_REQUEST", request_id: expect.any(String) }
        }
      })
      // Eleven lists asked for, none built: the answer stays a few hundred bytes.
      expect(JSON.stringify(res.body).length).toBeLessThan(1000)
    }
  })
})
