import { describe, expect, it } from "vitest"
import {
  problem,
  call,
  createSharedDatabase,
  createTenant,
  startServer,
  useServer,
  type ApiResponse,
  type TestServer
} from "./support/index.js"

/**
 * The public survey routes' per-address budget (spec 4.3 rule 2, 7.2's 429; the numbers are ours,
 * FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE). X-Forwarded-For names the client only when the peer is a
 * trusted proxy (FIDELIS_TRUSTED_PROXIES); otherwise anyone could pick a fresh budget per request.
 */

const BASE = "/api/v1/public/quests"

const active = (server: TestServer, ref: string, headers: Record<string, string> = {}) =>
  call(server, `${BASE}/${ref}/active`, { headers })

/**
 * Windows are fixed minutes: when the current one has less than 15 s left, waits for the next, so
 * a test's calls all land in one window. The probe counts for `address` (a throwaway one).
 */
const freshWindow = async (server: TestServer, headers: Record<string, string> = {}) => {
  const probe = await active(server, "sonda", headers)
  const secondsLeft = Number(probe.headers.get("x-ratelimit-reset")) - Date.now() / 1000
  if (secondsLeft < 15) await new Promise((r) => setTimeout(r, (secondsLeft + 1) * 1000))
}

const expectLimited = (res: ApiResponse) => {
  expect(res.status).toBe(429)
  expect(res.body).toEqual(problem({ error: "RATE_LIMIT_EXCEEDED" }, "RATE_LIMIT_EXCEEDED"))
  const retryAfter = Number(res.headers.get("retry-after"))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(60)
}

describe("without a trusted proxy: the TCP peer is the client", () => {
  const server = useServer({ env: { FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "6" } })

  it("counts the three routes' calls, refuses past the budget (429, Retry-After), ignores XFF", async () => {
    const tenant = await createTenant(server)
    const ref = tenant.empresa.id_name
    await freshWindow(server)
    const first = await active(server, ref)
    const used = 6 - Number(first.headers.get("x-ratelimit-remaining"))
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-limit")).toBe("6")
    // The three routes share the budget, refusals (here a 404 and a 400) included.
    const calls = [
      () =>
        call(server, `${BASE}/${ref}/${first.body.quest_id}/responses`, { body: { response: { csat: 5, nps: 9 } } }),
      () => active(server, "nao-existe-loja"),
      () => call(server, `${BASE}/${ref}/${first.body.quest_id}/responses`, { body: { response: {} } }),
      () =>
        call(server, `${BASE}/${ref}/00000000-0000-4000-8000-000000000000/contact`, {
          method: "PATCH",
          body: { client_name: "Ana" }
        }),
      () => active(server, ref)
    ]
    const statuses: Array<number> = []
    for (const send of calls.slice(0, 6 - used)) statuses.push((await send()).status)
    expect(statuses).toEqual([201, 404, 400, 404, 200].slice(0, 6 - used))
    // A spoofed X-Forwarded-For buys nothing: the server is not behind a trusted proxy.
    for (const forwarded of ["203.0.113.7", "198.51.100.1, 203.0.113.8", "::1"]) {
      expectLimited(await active(server, ref, { "x-forwarded-for": forwarded }))
    }
    const contact = await call(server, `${BASE}/${ref}/00000000-0000-4000-8000-000000000000/contact`, {
      method: "PATCH",
      body: { client_name: "Ana" }
    })
    expectLimited(contact)
    expect(contact.headers.get("x-ratelimit-remaining")).toBe("0")
    // The company API has its own budget, per key.
    expect((await call(server, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
  })
})

describe("behind a trusted proxy: X-Forwarded-For names the client", () => {
  const server = useServer({
    env: { FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "3", FIDELIS_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1, ::1" }
  })
  let counter = 0
  /** A client address no other test uses. */
  const fresh = () => `198.51.100.${++counter}`

  /** Uses up `address`'s budget of 3 through the trusted proxy (the test client on 127.0.0.1). */
  const exhaust = async (forwarded: string) => {
    for (let i = 0; i < 3; i++)
      expect((await active(server, "nao-existe", { "x-forwarded-for": forwarded })).status).toBe(404)
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": forwarded }))
  }

  it("each forwarded client has its own budget", async () => {
    await freshWindow(server, { "x-forwarded-for": fresh() })
    const one = fresh()
    await exhaust(one)
    expect((await active(server, "nao-existe", { "x-forwarded-for": fresh() })).status).toBe(404)
    // No X-Forwarded-For: the proxy itself is the client, with a budget of its own.
    expect((await active(server, "nao-existe")).status).toBe(404)
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": one }))
  })

  it("reads the chain from the right, past trusted proxies: a client-written entry is never believed", async () => {
    await freshWindow(server, { "x-forwarded-for": fresh() })
    const client = fresh()
    await exhaust(client)
    // The client prepends an address of its choice; the proxy appends the real one.
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": `${fresh()}, ${client}` }))
    // Through two trusted proxies (an inner one in 10/8, then this one): still the same client.
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": `${fresh()}, ${client}, 10.1.2.3` }))
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": `${client}:54321` }))
    const mapped = await active(server, "nao-existe", { "x-forwarded-for": `::ffff:${client}` })
    expectLimited(mapped)
    expect(mapped.headers.get("x-ratelimit-limit")).toBe("3")
  })

  it("counts IPv6 clients by their /64, which one subscriber holds whole", async () => {
    await freshWindow(server, { "x-forwarded-for": fresh() })
    await exhaust("2001:db8:aa:1::1")
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": "2001:db8:aa:1:ffff::9" }))
    expectLimited(await active(server, "nao-existe", { "x-forwarded-for": "[2001:0db8:00aa:0001::2]:443" }))
    expect((await active(server, "nao-existe", { "x-forwarded-for": "2001:db8:aa:2::1" })).status).toBe(404)
  })
})

describe("across server processes", () => {
  // Starts two servers and may wait for a fresh window: more than the usual minute on a busy machine.
  it("two processes on one database share each address's budget", { timeout: 180_000 }, async () => {
    const database = await createSharedDatabase()
    const env = { FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "4", FIDELIS_TRUSTED_PROXIES: "127.0.0.1" }
    const [a, b] = await Promise.all([
      startServer({ databaseUrl: database.url, env }),
      startServer({ databaseUrl: database.url, env })
    ])
    try {
      await freshWindow(a, { "x-forwarded-for": "192.0.2.200" })
      const client = { "x-forwarded-for": "192.0.2.1" }
      const remaining: Array<string | null> = []
      for (const server of [a, b, a, b]) {
        const res = await active(server, "nao-existe", client)
        expect(res.status).toBe(404)
        remaining.push(res.headers.get("x-ratelimit-remaining"))
      }
      expect(remaining).toEqual(["3", "2", "1", "0"])
      expectLimited(await active(a, "nao-existe", client))
      expectLimited(await active(b, "nao-existe", client))
    } finally {
      await Promise.all([a.stop(), b.stop()])
      await database.drop()
    }
  })
})
