import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { pgbouncerBinary, startPgbouncer, type Pooler } from "./support/pgbouncer.js"
import {
  balanceOf,
  call,
  createClient,
  createRealDatabase,
  createTenant,
  realServerUrl,
  startOfFreshWindow,
  startServer,
  type TestDatabase,
  type TestServer
} from "./support/index.js"

/**
 * The production shape (README, "Behind PgBouncer"): several server processes share one database
 * through PgBouncer in transaction pooling mode, so consecutive transactions of one process run on
 * different server connections and no session state survives between them. LISTEN goes around the
 * pooler (DATABASE_DIRECT_URL); everything else goes through it.
 */

const upstream = realServerUrl()
const binary = upstream === undefined ? undefined : await pgbouncerBinary()
const skipped =
  upstream === undefined
    ? "runs in the PostgreSQL pass: PgBouncer pools server connections, which the embedded database has none of"
    : binary === undefined && process.env["CI"] !== "true"
      ? "pgbouncer is not installed here (apt-get install pgbouncer; CI installs it and fails without it)"
      : undefined

const BUDGET = 20
const PATH = "/api/v1/public/clients"

describe("two server processes through PgBouncer (transaction pooling) on one database", () => {
  let pooler: Pooler | undefined
  let database: TestDatabase | undefined
  let a: TestServer
  let b: TestServer

  beforeAll(async () => {
    if (skipped !== undefined) return
    if (binary === undefined) throw new Error("pgbouncer is not installed: .ci/run installs it (ensure_pgbouncer)")
    pooler = await startPgbouncer(binary, upstream!)
    database = await createRealDatabase(upstream!)
    const options = {
      databaseUrl: pooler.urlFor(database.url),
      env: { DATABASE_DIRECT_URL: database.url, FIDELIS_RATE_LIMIT_PER_MINUTE: String(BUDGET) }
    }
    ;[a, b] = await Promise.all([startServer(options), startServer(options)])
  }, 180_000)

  beforeEach((context) => context.skip(skipped !== undefined, skipped))

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await pooler?.stop()
    await database?.drop()
  })

  it("runs through the pooler: both processes log in to it", async () => {
    const name = new URL(database!.url).pathname.slice(1)
    expect((await pooler!.log()).match(new RegExp(`login attempt: db=${name}`, "g"))!.length).toBeGreaterThan(1)
  })

  it("shares one rate-limit budget, counted exactly across both processes", { timeout: 120_000 }, async () => {
    const tenant = await createTenant(a)
    const used = await startOfFreshWindow(a, tenant.key)
    const burst = await Promise.all(
      Array.from({ length: BUDGET + 10 }, (_, i) => call(i % 2 ? a : b, PATH, { key: tenant.key }))
    )
    expect(burst.filter((r) => r.status === 200)).toHaveLength(BUDGET - used)
    expect(burst.filter((r) => r.status === 429)).toHaveLength(10 + used)
    const remaining = burst
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get("x-ratelimit-remaining")))
      .toSorted((x, y) => x - y)
    expect(remaining).toEqual(Array.from({ length: BUDGET - used }, (_, i) => i))
  })

  it("credits an idempotency key once, its parallel requests split across both processes", async () => {
    const tenant = await createTenant(a)
    const client = await createClient(a, tenant)
    // One order, sent again and again: the same key and body each time.
    const credit = (server: TestServer) =>
      call(server, "/api/v1/public/points/credit", {
        key: tenant.key,
        headers: { "x-idempotency-key": "pgbouncer-order-1" },
        body: { client_id: client.id, points: 25 }
      })
    const parallel = await Promise.all(Array.from({ length: 8 }, (_, i) => credit(i % 2 ? a : b)))
    // A duplicate still in flight is a 409; a finished one is replayed.
    expect(parallel.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    const credited = parallel.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null)
    expect(credited).toHaveLength(1)
    for (const server of [a, b]) {
      const retry = await credit(server)
      expect(retry.status).toBe(200)
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.body).toEqual(credited[0]!.body)
    }
    expect(await balanceOf(b, tenant, client.id)).toBe(25)
  })

  it("refuses a key revoked through one process at once in both", async () => {
    const tenant = await createTenant(a)
    // Both processes have the key's authentication cached.
    for (const server of [a, b]) expect((await call(server, PATH, { key: tenant.key })).status).toBe(200)
    const keys = await call(a, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: a.adminKey })
    const revoked = await call(a, `/api/v1/internal/api-keys/${keys.body[0].id}`, {
      method: "DELETE",
      key: a.adminKey
    })
    expect(revoked.status).toBeLessThan(300)
    // No retry: the revocation returns only once every listener has confirmed its eviction.
    expect((await call(b, PATH, { key: tenant.key })).status).toBe(401)
    expect((await call(a, PATH, { key: tenant.key })).status).toBe(401)
    expect(b.output()).not.toMatch(/eviction not confirmed/)
  })
})
