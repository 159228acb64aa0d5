import {
  appRouter,
  configFromEnv,
  createCallerFactory,
  createRequestContext,
  LOCAL_ADMIN,
  makeRuntime,
  type CoreRuntime
} from "@fidelis/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult, InitializeResult, ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { LogLevel } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testDatabaseConfig } from "@fidelis/db/testing"
import { createMcpHandler, SERVER_NAME, type McpHandler } from "../src/index.js"
import { COMPANY_TOOLS } from "./spec.js"

const ADMIN_KEY = `test-admin-${randomBytes(16).toString("hex")}`
const URL_MCP = "http://localhost/mcp"
const ADMIN_TOOLS = [
  "create_api_key",
  "create_empresa",
  "get_empresa",
  "list_api_keys",
  "revoke_api_key",
  "update_empresa"
]

let runtime: CoreRuntime
let handler: McpHandler
const createCaller = createCallerFactory(appRouter)
let admin: ReturnType<typeof createCaller>
let tenants = 0

let database: Awaited<ReturnType<typeof testDatabaseConfig>>

beforeAll(async () => {
  database = await testDatabaseConfig()
  runtime = makeRuntime(
    { ...configFromEnv({ FIDELIS_ADMIN_KEY: ADMIN_KEY }), databaseUrl: database.url, dataDir: database.dataDir },
    { logLevel: LogLevel.Warning }
  )
  handler = createMcpHandler({ runtime, allowedOrigins: ["https://app.fidelis.test"] })
  admin = createCaller(createRequestContext({ runtime, trustedPrincipal: LOCAL_ADMIN }))
})

afterAll(async () => {
  await runtime?.dispose()
  await database?.drop()
})

const createTenant = async (apiAccess = true) => {
  const slug = `mcp-tenant-${++tenants}`
  const empresa = await admin.empresas.create({ name: `Tenant ${tenants}`, id_name: slug, api_access: apiAccess })
  const { key } = await admin.keys.create({ empresa_id: empresa.id, name: "mcp test" })
  return { empresa, key }
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  handler(
    new Request(URL_MCP, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body)
    }),
    { requestId: crypto.randomUUID() }
  )

/** A JSON-RPC response, or the `{detail}` body of an HTTP refusal. */
interface RpcBody<T> {
  readonly result: T
  readonly error?: { readonly code: number; readonly message: string; readonly data?: { readonly detail?: unknown } }
}

let ids = 0

/** One JSON-RPC request as a client sends it; returns the HTTP response and its parsed body. */
const rpc = async <T = unknown>(
  key: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) => {
  const response = await post(
    { jsonrpc: "2.0", id: ++ids, method, params },
    { ...(key !== undefined && { "x-api-key": key }), ...headers }
  )
  return { response, body: (await response.json()) as RpcBody<T> }
}

const listTools = async (key: string) => (await rpc<ListToolsResult>(key, "tools/list")).body.result.tools

const toolNamed = (tools: ReadonlyArray<Tool>, name: string) => {
  const tool = tools.find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`tool ${name} not listed`)
  return tool
}

/** A tool result whose structured content the test reads field by field. */
type Result = CallToolResult & { structuredContent?: Record<string, unknown> & { id?: string; balance?: number } }

const callTool = async (key: string, name: string, args: Record<string, unknown>): Promise<Result> => {
  const { response, body } = await rpc<Result>(key, "tools/call", { name, arguments: args })
  expect(response.status).toBe(200)
  return body.result
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("")

/** `n` get_points_balance calls as one JSON-RPC batch. */
const balanceCalls = (clientId: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    jsonrpc: "2.0",
    id: `b${i}`,
    method: "tools/call",
    params: { name: "get_points_balance", arguments: { client_id: clientId } }
  }))

/** Fixed one-minute windows: waits for the next minute when this one is nearly over, so a burst fits in one. */
const startOfMinute = async () => {
  const intoWindow = Date.now() % 60_000
  if (intoWindow > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow))
}

const newClient = async (key: string, nome = "Maria Silva") => {
  const id = (await callTool(key, "create_client", { nome })).structuredContent?.id
  if (id === undefined) throw new Error("create_client returned no id")
  return { id }
}

/** The SDK's own client, its HTTP requests answered by the handler in process. */
const connect = async (key: string) => {
  const client = new Client({ name: "fidelis-test", version: "1.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    requestInit: { headers: { "X-API-Key": key } },
    fetch: (url, init) => handler(new Request(url, init), { requestId: crypto.randomUUID() })
  })
  await client.connect(transport)
  return client
}

describe("MCP handler: protocol", () => {
  it("answers initialize with the server info, instructions and the tools capability", async () => {
    const { key } = await createTenant()
    const { response, body } = await rpc<InitializeResult>(key, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1.0.0" }
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("mcp-session-id")).toBeNull()
    expect(response.headers.get("x-ratelimit-limit")).toBe("60")
    expect(body.result).toMatchObject({
      protocolVersion: "2025-06-18",
      serverInfo: { name: SERVER_NAME, version: expect.any(String) },
      capabilities: { tools: {} }
    })
    expect(body.result.instructions).toContain("credit_points")

    const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "x-api-key": key })
    expect(initialized.status).toBe(202)
  })

  it("GET and DELETE are 405 with Allow: POST (stateless)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await handler(new Request(URL_MCP, { method }), { requestId: "r" })
      expect(response.status).toBe(405)
      expect(response.headers.get("allow")).toBe("POST")
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { message: expect.any(String) } })
    }
  })

  it("an unknown tool, or one outside the caller's catalog, is a JSON-RPC invalid-params error", async () => {
    const { key } = await createTenant()
    for (const name of ["no_such_tool", "create_empresa"]) {
      const { response, body } = await rpc(key, "tools/call", { name, arguments: {} })
      expect(response.status).toBe(200)
      expect(body.error).toMatchObject({ code: -32602, message: expect.stringContaining(name) })
    }
  })

  it("arguments that are not an object are a JSON-RPC invalid-params error, not an internal one", async () => {
    const { key } = await createTenant()
    for (const args of [[], null, "x", 1]) {
      const { response, body } = await rpc(key, "tools/call", { name: "list_clients", arguments: args })
      expect(response.status).toBe(200)
      expect(body.error, JSON.stringify(args)).toMatchObject({
        code: -32602,
        message: expect.stringContaining("arguments")
      })
    }
  })
})

describe("MCP handler: catalog", () => {
  it("a company key lists exactly the five company tools, derived from the router", async () => {
    const { key } = await createTenant()
    const tools = await listTools(key)
    expect(tools.map((t) => t.name).toSorted()).toEqual(COMPANY_TOOLS)

    const credit = toolNamed(tools, "credit_points")
    expect(credit.description).toContain("Credit points")
    expect(credit.inputSchema).toMatchObject({
      type: "object",
      required: ["client_id", "points"],
      properties: { points: { type: "integer", minimum: 1 }, idempotency_key: { type: "string", maxLength: 255 } }
    })
    expect(credit.outputSchema).toMatchObject({ type: "object", required: expect.arrayContaining(["balance"]) })
    // Retrying a credit without its idempotency_key credits twice: not idempotent.
    expect(credit.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false
    })

    const list = toolNamed(tools, "list_clients")
    expect(list.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    expect(list.inputSchema.required ?? []).toEqual([])
    expect(toolNamed(tools, "create_client").inputSchema.properties).not.toHaveProperty("idempotency_key")
  })

  it("the admin key also sees the administration tools", async () => {
    const tools = await listTools(ADMIN_KEY)
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining([...ADMIN_TOOLS, ...COMPANY_TOOLS]))
    const listKeys = toolNamed(tools, "list_api_keys")
    expect(listKeys.outputSchema).toMatchObject({ type: "object", properties: { items: { type: "array" } } })
    expect(toolNamed(tools, "revoke_api_key").annotations?.destructiveHint).toBe(true)
  })

  it("every tool schema is JSON Schema 2020-12 that reads the same under draft-07", async () => {
    const tools = await listTools(ADMIN_KEY)
    const schemas = tools.flatMap((tool) =>
      tool.outputSchema === undefined ? [tool.inputSchema] : [tool.inputSchema, tool.outputSchema]
    )
    const keywords = new Set<string>()
    const collect = (node: unknown): void => {
      if (typeof node !== "object" || node === null) return
      for (const [key, value] of Object.entries(node)) {
        keywords.add(key)
        collect(value)
      }
    }
    schemas.forEach(collect)
    const undeclared = schemas.filter((schema) => schema.$schema !== "https://json-schema.org/draft/2020-12/schema")
    expect(schemas.length - undeclared.length).toBeGreaterThan(tools.length)
    // Only procedures without input omit it: no $schema means 2020-12 too, MCP's default.
    expect(undeclared).toEqual(undeclared.map(() => ({ type: "object", properties: {} })))
    // Keywords whose meaning changed after draft-07: the SDK client's Ajv reads outputSchema as
    // draft-07, so e.g. a tuple's 2020-12 `items: false` would reject every valid result.
    const changed = [
      "prefixItems",
      "$ref",
      "$defs",
      "$dynamicRef",
      "$anchor",
      "unevaluatedProperties",
      "unevaluatedItems"
    ]
    expect(changed.filter((keyword) => keywords.has(keyword))).toEqual([])
  })
})

describe("MCP handler: tool calls", () => {
  it("returns the procedure's result as text and structuredContent", async () => {
    const { key, empresa } = await createTenant()
    const client = await newClient(key)
    const result = await callTool(key, "get_points_balance", { client_id: client.id })
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toEqual({ client_id: client.id, balance: 0, empresa_id: empresa.id })
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent)

    const page = await callTool(key, "list_clients", {})
    expect(page.structuredContent).toMatchObject({ total: 1, page: 1, data: [{ id: client.id }] })
  })

  it("another tenant's client is not found, as a tool error", async () => {
    const mine = await createTenant()
    const theirs = await createTenant()
    const client = await newClient(theirs.key)
    const result = await callTool(mine.key, "get_client", { client_id: client.id })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/not found/i)
    expect(result.structuredContent).toBeUndefined()
  })

  it("invalid arguments are a tool error naming the fields, and change nothing", async () => {
    const { key } = await createTenant()
    const client = await newClient(key)
    const result = await callTool(key, "credit_points", { client_id: client.id, points: 0, bogus: 1 })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/Invalid arguments/)
    expect(textOf(result)).toMatch(/points: .*greater_than_equal/)
    expect(textOf(result)).toMatch(/bogus: .*extra_forbidden/)

    const longKey = await callTool(key, "credit_points", {
      client_id: client.id,
      points: 5,
      idempotency_key: "k".repeat(256)
    })
    expect(longKey.isError).toBe(true)
    expect(textOf(longKey)).toMatch(/idempotency_key: /)

    const balance = await callTool(key, "get_points_balance", { client_id: client.id })
    expect(balance.structuredContent?.balance).toBe(0)
  })

  it("an idempotency_key replays the first credit instead of crediting twice", async () => {
    const { key } = await createTenant()
    const client = await newClient(key)
    const args = { client_id: client.id, points: 50, description: "purchase", idempotency_key: "order-123" }
    const first = await callTool(key, "credit_points", args)
    const second = await callTool(key, "credit_points", args)
    expect(first.structuredContent).toMatchObject({ balance: 50, credited: 50 })
    expect(second.structuredContent).toEqual(first.structuredContent)
    expect(first).not.toHaveProperty("_meta")
    expect(second).toHaveProperty("_meta", { "fidelis/idempotent-replayed": true })

    const without = await callTool(key, "credit_points", { client_id: client.id, points: 50 })
    expect(without.structuredContent?.balance).toBe(100)
    const balance = await callTool(key, "get_points_balance", { client_id: client.id })
    expect(balance.structuredContent?.balance).toBe(100)
  })

  it("the same idempotency_key with different arguments is a tool error", async () => {
    const { key } = await createTenant()
    const client = await newClient(key)
    await callTool(key, "credit_points", { client_id: client.id, points: 10, idempotency_key: "k-1" })
    const clash = await callTool(key, "credit_points", { client_id: client.id, points: 20, idempotency_key: "k-1" })
    expect(clash.isError).toBe(true)
  })

  const batchCalls =
    "every tools/call of a batch counts against the rate limit; the request's own count covers the first"
  it(batchCalls, async () => {
    const { key } = await createTenant()
    const client = await newClient(key)
    const before = await rpc(key, "ping")
    const remaining = Number(before.response.headers.get("x-ratelimit-remaining"))
    const batch = await post(balanceCalls(client.id, 3), { "x-api-key": key })
    expect(batch.status).toBe(200)
    const results = (await batch.json()) as ReadonlyArray<RpcBody<Result>>
    expect(results.map((r) => r.result.structuredContent?.balance)).toEqual([0, 0, 0])
    expect(Number(batch.headers.get("x-ratelimit-remaining"))).toBe(remaining - 3)
  })

  it("a batch past the budget runs the calls within it; the rest are tool errors saying so", async () => {
    const { empresa, key } = await createTenant()
    const client = await newClient(key)
    const fresh = (await admin.keys.create({ empresa_id: empresa.id, name: "fresh budget" })).key
    await startOfMinute()
    // 55 calls in six batches (a batch carries at most 10), then one of 10 straddling the budget of 60.
    for (const size of [10, 10, 10, 10, 10, 5]) {
      expect((await post(balanceCalls(client.id, size), { "x-api-key": fresh })).status).toBe(200)
    }
    const batch = await post(balanceCalls(client.id, 10), { "x-api-key": fresh })
    expect(batch.status).toBe(200)
    const results = (await batch.json()) as ReadonlyArray<RpcBody<Result>>
    const refused = results.filter((r) => r.result.isError)
    expect(results.filter((r) => r.result.structuredContent?.balance === 0)).toHaveLength(5)
    expect(refused).toHaveLength(5)
    expect(textOf(refused[0]!.result)).toMatch(/Rate limit exceeded; retry in \d+ s/)
    expect(batch.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(Number(batch.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  }, 120_000)

  it("a batch of more than 10 messages is refused whole", async () => {
    const { key } = await createTenant()
    const response = await post(balanceCalls(crypto.randomUUID(), 11), { "x-api-key": key })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error: { code: -32600, message: expect.stringContaining("at most 10 messages") }
    })
  })
})

describe("MCP handler: HTTP refusals", () => {
  it("no key is 401 as a JSON-RPC error whose data is the error body", async () => {
    const { response, body } = await rpc(undefined, "tools/list")
    expect(response.status).toBe(401)
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: expect.stringContaining("Missing API key"),
        data: {
          detail: expect.stringContaining("Missing API key"),
          code: "UNAUTHENTICATED",
          request_id: expect.any(String)
        }
      }
    })
  })

  it("conflicting X-API-Key and Authorization is 400", async () => {
    const { key } = await createTenant()
    const other = await createTenant()
    const { response } = await rpc(key, "tools/list", {}, { authorization: `Bearer ${other.key}` })
    expect(response.status).toBe(400)
  })

  it("an empresa without api_access is 403", async () => {
    const { key } = await createTenant(false)
    const { response, body } = await rpc(key, "tools/list")
    expect(response.status).toBe(403)
    expect(body.error?.data?.detail).toMatch(/API access/)
  })

  it("an Origin outside the allowed list is 403; a listed one is served", async () => {
    const { key } = await createTenant()
    const bad = await rpc(key, "tools/list", {}, { origin: "https://evil.example" })
    expect(bad.response.status).toBe(403)
    const good = await rpc(key, "tools/list", {}, { origin: "https://app.fidelis.test" })
    expect(good.response.status).toBe(200)
  })

  it("a page served from the server's own loopback origin is served; a rebound host is 403", async () => {
    const { key } = await createTenant()
    const local = await rpc(key, "tools/list", {}, { host: "localhost:3000", origin: "http://localhost:3000" })
    expect(local.response.status).toBe(200)
    // DNS rebinding: the browser sends the attacker's name as both Host and Origin.
    const rebound = await rpc(key, "tools/list", {}, { host: "evil.example:3000", origin: "http://evil.example:3000" })
    expect(rebound.response.status).toBe(403)
    const otherPort = await rpc(key, "tools/list", {}, { host: "localhost:3000", origin: "http://localhost:8080" })
    expect(otherPort.response.status).toBe(403)
  })

  it("a body over the limit is 413 with the error body as JSON-RPC data, declared or not", async () => {
    const { key } = await createTenant()
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1024 * 1024) } })
    const declaredOrNot: ReadonlyArray<Record<string, string>> = [
      { "x-api-key": key },
      { "x-api-key": key, "content-length": String(big.length) }
    ]
    for (const headers of declaredOrNot) {
      const response = await post(JSON.parse(big), headers)
      expect(response.status).toBe(413)
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message: "Request body exceeds the limit of 1048576 bytes",
          data: {
            detail: "Request body exceeds the limit of 1048576 bytes",
            code: "PAYLOAD_TOO_LARGE",
            request_id: expect.any(String)
          }
        }
      })
    }
  })

  it("a request without a valid key is refused before its body is read", async () => {
    let read = false
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          read = true
          controller.enqueue(new TextEncoder().encode("[]"))
          controller.close()
        }
      },
      { highWaterMark: 0 }
    )
    const init: RequestInit & { duplex: "half" } = {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
      duplex: "half"
    }
    const response = await handler(new Request(URL_MCP, init), { requestId: "r" })
    expect(response.status).toBe(401)
    expect(read).toBe(false)
  })

  it("the 61st request in a minute is 429 with Retry-After", async () => {
    const { key } = await createTenant()
    await startOfMinute()
    const resets = new Set<string | null>()
    for (let i = 1; i <= 60; i++) {
      const { response } = await rpc(key, "ping")
      expect(response.status).toBe(200)
      resets.add(response.headers.get("x-ratelimit-reset"))
    }
    const { response, body } = await rpc(key, "tools/list")
    resets.add(response.headers.get("x-ratelimit-reset"))
    expect(resets.size).toBe(1)
    expect(response.status).toBe(429)
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(response.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(body.error?.data?.detail).toMatch(/Rate limit/)
  }, 120_000)
})

describe("MCP handler: with the SDK client", () => {
  it("lists and calls tools; structured results validate against the advertised output schemas", async () => {
    const { key, empresa } = await createTenant()
    const client = await connect(key)
    expect(client.getServerVersion()?.name).toBe(SERVER_NAME)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).toSorted()).toEqual(COMPANY_TOOLS)

    const created = await client.callTool({ name: "create_client", arguments: { nome: "João", cpf: "529.982.247-25" } })
    const clientId = (created.structuredContent as { id: string }).id
    const credited = await client.callTool({ name: "credit_points", arguments: { client_id: clientId, points: 7 } })
    expect(credited.structuredContent).toMatchObject({ balance: 7, empresa_id: empresa.id })
    await client.close()

    const adminClient = await connect(ADMIN_KEY)
    await adminClient.listTools()
    const keys = await adminClient.callTool({ name: "list_api_keys", arguments: { empresa_id: empresa.id } })
    expect(keys.structuredContent).toMatchObject({ items: [{ empresa_id: empresa.id, scope: "empresa" }] })
    await adminClient.close()
  })
})
