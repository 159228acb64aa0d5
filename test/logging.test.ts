import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  connectMcp,
  createSharedDatabase,
  createTenant,
  startServer,
  type Tenant,
  type TestDatabase,
  type TestServer,
  problem
} from "./support/index.js"

/**
 * The server's log: one JSON format for the access log and core's own lines, and an unexpected
 * failure logged once, on its request's line, with its cause. A 500 is provoked from outside by
 * renaming a table under the running server (the shared database lets the test reach it).
 */

let database: TestDatabase
let server: TestServer
let tenant: Tenant

beforeAll(async () => {
  database = await createSharedDatabase()
  server = await startServer({ databaseUrl: database.url })
  tenant = await createTenant(server)
})
afterAll(async () => {
  await server?.stop()
  await database?.drop()
})

const sql = async (text: string) => {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** Runs `body` while the products table is renamed away, so its reads fail inside the server. */
const withoutProducts = async (body: () => Promise<void>) => {
  await sql("ALTER TABLE products RENAME TO products_elsewhere")
  try {
    await body()
  } finally {
    await sql("ALTER TABLE products_elsewhere RENAME TO products")
  }
}

interface Line {
  readonly timestamp?: string
  readonly level?: string
  readonly message?: string
  readonly request_id?: string
  readonly status?: number
  readonly error?: string
  readonly [field: string]: unknown
}

const parsed = (output: string): Line[] =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line)

const lines = () => parsed(server.output())

describe("the server log", () => {
  const loggedOnce =
    "logs an unexpected failure once per request, on its access-log line, with the cause; " +
    "the response says nothing more"
  it(loggedOnce, async () => {
    expect((await call(server, "/api/v1/public/products", { key: tenant.key })).status).toBe(200)
    await withoutProducts(async () => {
      const rest = await call(server, "/api/v1/public/products", {
        key: tenant.key,
        headers: { "x-request-id": "log-rest-1" }
      })
      expect(rest.status).toBe(500)
      expect(rest.body).toEqual(problem("Internal server error", "INTERNAL_ERROR"))

      const trpc = await call(server, "/trpc/products.list?input=%7B%7D", {
        key: tenant.key,
        headers: { "x-request-id": "log-trpc-1" }
      })
      expect(trpc.status).toBe(500)
      expect(JSON.stringify(trpc.body)).not.toMatch(/products_elsewhere|relation|Sql|at \//)

      const mcp = await connectMcp(server, tenant.key)
      try {
        await expect(mcp.callTool({ name: "list_products", arguments: {} })).rejects.toThrow(
          /"data":\{"detail":"Internal server error","code":"INTERNAL_ERROR","request_id":"[\w-]+"\}\},"id":\d+\}$/
        )
      } finally {
        await mcp.close()
      }
    })

    await server.waitForOutput(
      /"status":500[^\n]*\n(?:[^\n]*\n)*[^\n]*"status":500[^\n]*\n(?:[^\n]*\n)*[^\n]*"status":500/
    )
    for (const requestId of ["log-rest-1", "log-trpc-1"]) {
      const about = lines().filter((line) => line.request_id === requestId)
      expect(about).toHaveLength(1)
      expect(about[0]).toMatchObject({
        level: "error",
        message: "request",
        status: 500,
        // The driver's message, which names the relation (spans are off unless FIDELIS_TRACING is set).
        error: expect.stringMatching(/relation "products" does not exist/)
      })
      // Spans are off by default: the cause names no service call.
      expect(about[0]!.error).not.toMatch(/Products\.list/)
    }
    const mcpFailures = lines().filter((line) => line.path === "/mcp" && line.status === 500)
    expect(mcpFailures).toHaveLength(1)
    expect(mcpFailures[0]!.error).toMatch(/relation "products" does not exist/)
    expect(lines().filter((line) => line.request_id === mcpFailures[0]!.request_id)).toHaveLength(1)
  })

  it("with FIDELIS_TRACING=1, the logged cause also names the service call that failed", async () => {
    const traced = await startServer({ databaseUrl: database.url, env: { FIDELIS_TRACING: "1" } })
    try {
      await withoutProducts(async () => {
        const res = await call(traced, "/api/v1/public/products", {
          key: tenant.key,
          headers: { "x-request-id": "log-traced-1" }
        })
        expect(res.status).toBe(500)
      })
      await traced.waitForOutput(/"log-traced-1"/)
      const line = parsed(traced.output()).find((entry) => entry.request_id === "log-traced-1")
      expect(line?.error).toMatch(/Products\.list/)
      expect(line?.error).toMatch(/relation "products" does not exist/)
    } finally {
      await traced.stop()
    }
  })

  it("writes every line, the server's and core's alike, with the same fields", async () => {
    const all = lines()
    // Both writers are in the sample: the access log and a line core logs through Effect at start.
    expect(all.filter((line) => line.message === "request").length).toBeGreaterThan(3)
    expect(all.find((line) => line.message === "database ready")).toMatchObject({
      level: "info",
      schema_version: expect.any(Number),
      migrations_applied: expect.any(Array)
    })
    for (const line of all) {
      expect(line).toMatchObject({
        timestamp: expect.any(String),
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        message: expect.any(String)
      })
      expect(line).not.toHaveProperty("logLevel")
      expect(line).not.toHaveProperty("annotations")
    }
  })
})
