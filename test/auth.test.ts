import { describe, expect, it } from "vitest"
import {
  balanceOf,
  call,
  createClient,
  createSharedDatabase,
  createTenant,
  realServerUrl,
  startOfFreshWindow,
  startServer,
  useServer,
  problem,
  testRedisUrl
} from "./support/index.js"

const server = useServer()

describe("company API authentication (spec section 5, 7.1)", () => {
  it("401 without a key, with a malformed, unknown or revoked key", async () => {
    const tenant = await createTenant(server)
    const missing = await call(server, "/api/v1/public/clients")
    expect(missing.status).toBe(401)
    expect(missing.body).toEqual(problem(expect.stringContaining("Missing API key"), "UNAUTHENTICATED"))

    const malformed = await call(server, "/api/v1/public/clients", { key: "not-a-key" })
    expect(malformed.status).toBe(401)
    expect(malformed.body.detail).toMatch(/Malformed/)

    const unknown = await call(server, "/api/v1/public/clients", { key: `fid_${"x".repeat(32)}` })
    expect(unknown.status).toBe(401)
    expect(unknown.body).toEqual(problem("Invalid or revoked API key", "UNAUTHENTICATED"))

    const basic = await call(server, "/api/v1/public/clients", { headers: { authorization: `Basic ${tenant.key}` } })
    expect(basic.status).toBe(401)

    const keys = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: server.adminKey })
    const revoked = await call(server, `/api/v1/internal/api-keys/${keys.body[0].id}`, {
      method: "DELETE",
      key: server.adminKey
    })
    expect(revoked.status).toBe(200)
    expect(revoked.body.revoked_at).toEqual(expect.any(String))
    const afterRevoke = await call(server, "/api/v1/public/clients", { key: tenant.key })
    expect(afterRevoke.status).toBe(401)
    expect(afterRevoke.body).toEqual({ ...unknown.body, request_id: afterRevoke.body.request_id })
  })

  it("accepts Authorization: Bearer, and both headers only when they agree (else 400)", async () => {
    const tenant = await createTenant(server)
    const bearer = await call(server, "/api/v1/public/clients", { headers: { authorization: `Bearer ${tenant.key}` } })
    expect(bearer.status).toBe(200)
    const both = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      headers: { authorization: `Bearer ${tenant.key}` }
    })
    expect(both.status).toBe(200)
    const other = await createTenant(server)
    const conflicting = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      headers: { authorization: `Bearer ${other.key}` }
    })
    expect(conflicting.status).toBe(400)
    expect(conflicting.body.detail).toMatch(/different keys/)
  })

  it("403 when the plan has no api_access, and for a company key on the admin API", async () => {
    const noAccess = await createTenant(server, { apiAccess: false })
    const refused = await call(server, "/api/v1/public/clients", { key: noAccess.key })
    expect(refused.status).toBe(403)
    expect(refused.body.detail).toMatch(/API access/)

    const tenant = await createTenant(server)
    const admin = await call(server, "/api/v1/internal/empresas", {
      key: tenant.key,
      body: { name: "x", id_name: "x" }
    })
    expect(admin.status).toBe(403)

    // Turning api_access on again takes effect immediately.
    const patched = await call(server, `/api/v1/internal/empresas/${noAccess.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { api_access: true }
    })
    expect(patched.status).toBe(200)
    expect((await call(server, "/api/v1/public/clients", { key: noAccess.key })).status).toBe(200)
  })

  it("two tenants cannot see each other's clients (404, never the data)", async () => {
    const a = await createTenant(server)
    const b = await createTenant(server)
    const clientOfA = await createClient(server, a, { nome: "Only A" })
    await createClient(server, b, { nome: "Only B" })

    for (const path of [`/api/v1/public/clients/${clientOfA.id}`, `/api/v1/public/points/${clientOfA.id}`]) {
      const res = await call(server, path, { key: b.key })
      expect(res.status).toBe(404)
      expect(JSON.stringify(res.body)).not.toContain("Only A")
    }
    const credit = await call(server, "/api/v1/public/points/credit", {
      key: b.key,
      body: { client_id: clientOfA.id, points: 10 }
    })
    expect(credit.status).toBe(404)
    const listB = await call(server, "/api/v1/public/clients", { key: b.key })
    expect(listB.body.data.map((c: { nome: string }) => c.nome)).toEqual(["Only B"])
    expect(await balanceOf(server, a, clientOfA.id)).toBe(0)
  })
})

/** Where the budgets are counted: the database (Postgres, or memory on PGlite), and Redis when the run has one. */
const limiters: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: "counted by the database", env: {} },
  ...(testRedisUrl() === undefined ? [] : [{ name: "counted in Redis", env: { REDIS_URL: testRedisUrl()! } }])
]

describe.each(limiters)("rate limit: 60 requests per minute per key (spec section 8), $name", ({ env }) => {
  const limited = env["REDIS_URL"] === undefined ? server : useServer({ env })

  it("sends X-RateLimit-* on every authenticated response and refuses the 61st with 429 and Retry-After", async () => {
    const tenant = await createTenant(limited)
    const used = await startOfFreshWindow(limited, tenant.key)
    const statuses: number[] = []
    let last
    for (let i = used; i < 60; i++) {
      last = await call(
        limited,
        i % 2 ? "/api/v1/public/clients" : "/api/v1/public/clients/00000000-0000-4000-8000-000000000000",
        {
          key: tenant.key
        }
      )
      statuses.push(last.status)
      expect(last.headers.get("x-ratelimit-limit")).toBe("60")
      expect(Number(last.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000)
    }
    if (statuses.filter((s) => s === 429).length > 0) throw new Error(`throttled early: ${statuses.join(",")}`)
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0")
    const over = await call(limited, "/api/v1/public/clients", { key: tenant.key })
    expect(over.status).toBe(429)
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(over.body).toEqual(problem(expect.stringMatching(/Rate limit/), "RATE_LIMIT_EXCEEDED"))

    // Budgets are per key: another key of another tenant is unaffected.
    const other = await createTenant(limited)
    expect((await call(limited, "/api/v1/public/clients", { key: other.key })).status).toBe(200)
  })

  it("counts parallel requests exactly: 80 at once give 60 answers and 20 refusals", async () => {
    const tenant = await createTenant(limited)
    const used = await startOfFreshWindow(limited, tenant.key)
    const burst = await Promise.all(
      Array.from({ length: 80 - used }, () => call(limited, "/api/v1/public/clients", { key: tenant.key }))
    )
    const ok = burst.filter((r) => r.status === 200)
    expect(ok).toHaveLength(60 - used)
    expect(burst.filter((r) => r.status === 429)).toHaveLength(20)
    // Each admitted request got its own place in the window.
    const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).toSorted((x, y) => x - y)
    expect(remaining).toEqual(Array.from({ length: 60 - used }, (_, i) => i))
  })

  it("counts refused requests too, and past the budget answers 429 before the request's own refusal", async () => {
    const tenant = await createTenant(limited)
    const used = await startOfFreshWindow(limited, tenant.key)
    // A query that fails validation (422), a body that is not JSON (400), and a good read, in turn.
    const attempts = [
      () => call(limited, "/api/v1/public/clients?limit=many", { key: tenant.key }),
      () => call(limited, "/api/v1/public/clients", { key: tenant.key, body: "{" }),
      () => call(limited, "/api/v1/public/clients", { key: tenant.key })
    ]
    const seen: Array<[number, string | null]> = []
    for (let i = used; i < 60; i++) {
      const res = await attempts[i % 3]!()
      seen.push([res.status, res.headers.get("x-ratelimit-remaining")])
    }
    expect(seen).toEqual(
      Array.from({ length: 60 - used }, (_, j) => [[422, 400, 200][(used + j) % 3], String(59 - used - j)])
    )
    for (const attempt of attempts) {
      const over = await attempt()
      expect(over.status).toBe(429)
      expect(over.body).toEqual(problem(expect.stringMatching(/Rate limit/), "RATE_LIMIT_EXCEEDED"))
    }
  })

  it("two server processes on one database share one budget", async () => {
    const database = await createSharedDatabase()
    const [a, b] = await Promise.all([
      startServer({ databaseUrl: database.url, env }),
      startServer({ databaseUrl: database.url, env })
    ])
    try {
      const tenant = await createTenant(a)
      const used = await startOfFreshWindow(a, tenant.key)
      const remaining: number[] = []
      for (let i = used; i < 60; i++) {
        const res = await call(i % 2 ? a : b, "/api/v1/public/clients", { key: tenant.key })
        expect(res.status).toBe(200)
        remaining.push(Number(res.headers.get("x-ratelimit-remaining")))
      }
      // The budget counts down across both processes together.
      expect(remaining.slice(-3)).toEqual([2, 1, 0])
      const [overA, overB] = [
        await call(a, "/api/v1/public/clients", { key: tenant.key }),
        await call(b, "/api/v1/public/clients", { key: tenant.key })
      ]
      expect(overA.status).toBe(429)
      expect(overB.status).toBe(429)
    } finally {
      await Promise.all([a.stop(), b.stop()])
      await database.drop()
    }
  })
})

describe("rate limit counted in Redis, when Redis is unreachable", () => {
  // Refused rather than counted elsewhere: another store would split the budget (docs/decisions.md).
  it("refuses with 503, Retry-After and the documented body, and still answers health checks", async () => {
    const database = await createSharedDatabase()
    const [counted, unreachable] = await Promise.all([
      startServer({ databaseUrl: database.url }),
      startServer({ databaseUrl: database.url, env: { REDIS_URL: "redis://127.0.0.1:1" } })
    ])
    try {
      const tenant = await createTenant(counted)
      const res = await call(unreachable, "/api/v1/public/clients", { key: tenant.key })
      expect(res.status).toBe(503)
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(res.body.detail).toEqual({
        code: "SERVICE_UNAVAILABLE",
        message: "The service is temporarily unavailable; retry in a few seconds"
      })
      expect(JSON.stringify(res.body)).not.toMatch(/ECONN|Error:|redis/i)
      expect((await call(unreachable, "/healthz")).status).toBe(200)
    } finally {
      await Promise.all([counted.stop(), unreachable.stop()])
      await database.drop()
    }
  })
})

describe("revocation across server processes", () => {
  // Each process caches authentications; a revocation must reach the others (LISTEN/NOTIFY). The
  // embedded database has one process only, so this is a real-server concern.
  it.runIf(realServerUrl() !== undefined)(
    "a key revoked through one process is refused by the other at once",
    async () => {
      const database = await createSharedDatabase()
      const [a, b] = await Promise.all([
        startServer({ databaseUrl: database.url }),
        startServer({ databaseUrl: database.url })
      ])
      try {
        const tenant = await createTenant(a)
        expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
        const keys = await call(a, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: a.adminKey })
        await call(a, `/api/v1/internal/api-keys/${keys.body[0].id}`, { method: "DELETE", key: a.adminKey })
        let status = 0
        for (let attempt = 0; attempt < 20 && status !== 401; attempt++) {
          status = (await call(b, "/api/v1/public/clients", { key: tenant.key })).status
          if (status !== 401) await new Promise((r) => setTimeout(r, 50))
        }
        expect(status).toBe(401)

        // Plan changes travel the same way.
        const other = await createTenant(a)
        expect((await call(b, "/api/v1/public/clients", { key: other.key })).status).toBe(200)
        await call(a, `/api/v1/internal/empresas/${other.empresa.id}`, {
          method: "PATCH",
          key: a.adminKey,
          body: { api_access: false }
        })
        let planStatus = 0
        for (let attempt = 0; attempt < 20 && planStatus !== 403; attempt++) {
          planStatus = (await call(b, "/api/v1/public/clients", { key: other.key })).status
          if (planStatus !== 403) await new Promise((r) => setTimeout(r, 50))
        }
        expect(planStatus).toBe(403)
      } finally {
        await Promise.all([a.stop(), b.stop()])
        await database.drop()
      }
    }
  )
})
