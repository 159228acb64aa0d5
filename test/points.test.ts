import pg from "pg"
import { describe, expect, it } from "vitest"
import {
  balanceOf,
  call,
  createClient,
  createRealDatabase,
  createTenant,
  realServerUrl,
  startServer,
  useServer,
  problem
} from "./support/index.js"

const server = useServer()

describe("credit_points and get_points_balance", () => {
  it("credits and reports the balance record", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const res = await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      body: { client_id: client.id, points: 75, description: "Compra #12", source: "purchase" }
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      client_id: client.id,
      balance: 75,
      empresa_id: tenant.empresa.id,
      credited: 75,
      transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/)
    })
    const balance = await call(server, `/api/v1/public/points/${client.id}`, { key: tenant.key })
    expect(balance.body).toEqual({ client_id: client.id, balance: 75, empresa_id: tenant.empresa.id })
    const fetched = await call(server, `/api/v1/public/clients/${client.id}`, { key: tenant.key })
    expect(fetched.body.pontos).toBe(75)
  })
})

describe("idempotency (X-Idempotency-Key, docs/architecture.md, Storage)", () => {
  it("replays the stored response for the same key and body, crediting once", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const request = {
      key: tenant.key,
      body: { client_id: client.id, points: 40 },
      headers: { "x-idempotency-key": "order-981" }
    }
    const first = await call(server, "/api/v1/public/points/credit", request)
    const second = await call(server, "/api/v1/public/points/credit", request)
    expect(first.status).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(second.status).toBe(200)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(second.body).toEqual(first.body)
    expect(await balanceOf(server, tenant, client.id)).toBe(40)

    // The same key in another tenant is another key.
    const other = await createTenant(server)
    const otherClient = await createClient(server, other)
    const elsewhere = await call(server, "/api/v1/public/points/credit", {
      key: other.key,
      body: { client_id: otherClient.id, points: 5 },
      headers: { "x-idempotency-key": "order-981" }
    })
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.headers.get("idempotent-replayed")).toBeNull()
  })

  it("refuses the same key with a different body (422) and changes nothing", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const headers = { "x-idempotency-key": "k-1" }
    await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      headers,
      body: { client_id: client.id, points: 10 }
    })
    const reused = await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      headers,
      body: { client_id: client.id, points: 99 }
    })
    expect(reused.status).toBe(422)
    expect(reused.body.detail).toEqual([
      {
        loc: ["header", "X-Idempotency-Key"],
        msg: expect.stringMatching(/different request body/),
        type: "idempotency_key_reused"
      }
    ])
    expect(await balanceOf(server, tenant, client.id)).toBe(10)
  })

  it("rejects a key longer than 255 characters with 422", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const res = await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      headers: { "x-idempotency-key": "k".repeat(256) },
      body: { client_id: client.id, points: 10 }
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(["header", "X-Idempotency-Key"])
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })
})

describe("concurrency", () => {
  it("50 parallel credits with 50 distinct keys sum exactly", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(server, "/api/v1/public/points/credit", {
          key: tenant.key,
          headers: { "x-idempotency-key": `parallel-${i}` },
          body: { client_id: client.id, points: i + 1 }
        })
      )
    )
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200))
    expect(await balanceOf(server, tenant, client.id)).toBe((50 * 51) / 2)
    // Every intermediate balance was handed out exactly once: no lost update.
    expect(new Set(results.map((r) => r.body.balance)).size).toBe(50)
  })

  it("20 parallel credits with one key credit once", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(server, "/api/v1/public/points/credit", {
          key: tenant.key,
          headers: { "x-idempotency-key": "same-key" },
          body: { client_id: client.id, points: 30 }
        })
      )
    )
    const statuses = results.map((r) => r.status)
    // Each is either the first, a replay, or told the first is still in flight (409).
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true)
    expect(statuses).toContain(200)
    const transactionIds = new Set(results.filter((r) => r.status === 200).map((r) => r.body.transaction_id))
    expect(transactionIds.size).toBe(1)
    for (const refused of results.filter((r) => r.status === 409))
      expect(refused.body.detail.code).toBe("IDEMPOTENCY_IN_FLIGHT")
    expect(await balanceOf(server, tenant, client.id)).toBe(30)
  })
})

describe("invalid input changes nothing and gets the documented 422 shape", () => {
  it("names each bad field with its location", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const cases: Array<[string, Parameters<typeof call>[2], unknown[]]> = [
      ["/api/v1/public/points/credit", { body: { client_id: client.id, points: -5 } }, ["body", "points"]],
      ["/api/v1/public/points/credit", { body: { client_id: client.id, points: 1.5 } }, ["body", "points"]],
      ["/api/v1/public/points/credit", { body: { points: 5 } }, ["body", "client_id"]],
      ["/api/v1/public/points/credit", { body: { client_id: "abc", points: 5 } }, ["body", "client_id"]],
      ["/api/v1/public/points/credit", { body: { client_id: client.id, points: 5, bonus: true } }, ["body", "bonus"]],
      ["/api/v1/public/clients?per_page=101", {}, ["query", "per_page"]],
      ["/api/v1/public/clients?page=0", {}, ["query", "page"]],
      ["/api/v1/public/clients?sort=age", {}, ["query", "sort"]],
      ["/api/v1/public/clients/not-a-uuid", {}, ["path", "client_id"]],
      ["/api/v1/public/clients", { body: { nome: "" } }, ["body", "nome"]],
      ["/api/v1/public/clients", { body: { nome: "X", cpf: "123.456.789-00" } }, ["body", "cpf"]],
      ["/api/v1/public/clients", { body: { nome: "X", telefone: "123" } }, ["body", "telefone"]],
      ["/api/v1/public/clients", { body: { nome: "X", email: "nope" } }, ["body", "email"]]
    ]
    for (const [path, options, loc] of cases) {
      const res = await call(server, path, { key: tenant.key, ...options })
      expect(res.status, `${path} ${JSON.stringify(options)}`).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: expect.any(String) })
    }
    const missing = await call(server, "/api/v1/public/points/credit", { key: tenant.key, body: { points: 5 } })
    expect(missing.body.detail).toContainEqual({ loc: ["body", "client_id"], msg: expect.any(String), type: "missing" })

    expect(await balanceOf(server, tenant, client.id)).toBe(0)
    const list = await call(server, "/api/v1/public/clients", { key: tenant.key })
    expect(list.body.total).toBe(1)
  })

  it("malformed JSON is a 400 with a detail message", async () => {
    const tenant = await createTenant(server)
    const res = await call(server, "/api/v1/public/points/credit", { key: tenant.key, body: "{not json" })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(problem(expect.any(String), "MALFORMED_JSON"))
  })
})

describe("idempotency while the first request is in flight", () => {
  // PGlite is a single session: transactions serialize, so "in flight" cannot be observed there.
  it.runIf(realServerUrl() !== undefined)("answers 409 IDEMPOTENCY_IN_FLIGHT and changes nothing", async () => {
    const database = await createRealDatabase(realServerUrl()!)
    const own = await startServer({ databaseUrl: database.url })
    const holder = new pg.Client({ connectionString: database.url })
    try {
      const tenant = await createTenant(own)
      const client = await createClient(own, tenant)
      // Hold the key's lock from another session, as a first request still running would.
      await holder.connect()
      await holder.query("BEGIN")
      await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `${tenant.empresa.id}:credit_points:busy-key`
      ])
      const second = await call(own, "/api/v1/public/points/credit", {
        key: tenant.key,
        headers: { "x-idempotency-key": "busy-key" },
        body: { client_id: client.id, points: 10 }
      })
      expect(second.status).toBe(409)
      expect(second.body.detail).toEqual({ code: "IDEMPOTENCY_IN_FLIGHT", message: expect.any(String) })
      await holder.query("ROLLBACK")
      expect(await balanceOf(own, tenant, client.id)).toBe(0)
      // Once the first is gone, the key works.
      const retry = await call(own, "/api/v1/public/points/credit", {
        key: tenant.key,
        headers: { "x-idempotency-key": "busy-key" },
        body: { client_id: client.id, points: 10 }
      })
      expect(retry.status).toBe(200)
    } finally {
      await holder.end()
      await own.stop()
      await database.drop()
    }
  })
})
