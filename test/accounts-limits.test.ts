import pg from "pg"
import { decodeProtectedHeader } from "jose"
import { describe, expect, it } from "vitest"
import {
  bearer,
  call,
  createSharedDatabase,
  registerAccount,
  startServer,
  useServer,
  type ApiResponse,
  type TestServer
} from "./support/index.js"

/**
 * The end-user API's budgets and login throttle with low limits, and signing-key rotation
 * (docs/decisions.md "Passwords and login throttling", "Access and refresh tokens").
 * X-Forwarded-For from the trusted loopback proxy gives each test its own client address.
 */

const USER_LIMIT = 5
const IP_LIMIT = 12

const server = useServer({
  env: {
    FIDELIS_PASSWORD_COST: "10",
    FIDELIS_TRUSTED_PROXIES: "127.0.0.1",
    FIDELIS_USER_RATE_LIMIT_PER_MINUTE: String(USER_LIMIT),
    FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: String(IP_LIMIT),
    FIDELIS_LOGIN_SLOW_AFTER: "1000",
    FIDELIS_LOGIN_LOCK_AFTER: "1000",
    FIDELIS_LOGIN_IP_SLOW_AFTER: "2",
    FIDELIS_LOGIN_IP_LOCK_AFTER: "4"
  }
})

const from = (address: string) => ({ "x-forwarded-for": address })

const me = (target: TestServer, token: string, address: string) =>
  call(target, "/api/v1/users/me", { headers: { ...bearer(token), ...from(address) } })

/**
 * Windows are fixed minutes: with under 15 s left in this one, waits for the next, so a test's
 * calls share one. The probe (a token-less route, counted per address) uses a throwaway address.
 */
const freshWindow = async (probeAddress: string) => {
  const res = await call(server, "/api/v1/auth/logout", {
    body: { refresh_token: "probe" },
    headers: from(probeAddress)
  })
  expect(res.headers.get("x-ratelimit-reset")).not.toBeNull()
  const secondsLeft = Number(res.headers.get("x-ratelimit-reset")) - Date.now() / 1000
  if (secondsLeft < 15) await new Promise((r) => setTimeout(r, (secondsLeft + 1) * 1000))
}

const expectLimited = (res: ApiResponse) => {
  expect(res.status).toBe(429)
  expect(res.body.code).toBe("RATE_LIMIT_EXCEEDED")
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
}

describe("bearer rate limits", () => {
  it("refuses a user past the per-user budget, while another user from the same address goes on", async () => {
    const address = "203.0.113.1"
    await freshWindow("203.0.113.99")
    const ana = await registerAccount(server, {}, from(address))
    const bia = await registerAccount(server, {}, from(address))
    for (let i = 0; i < USER_LIMIT; i++) {
      const res = await me(server, ana.access_token, address)
      expect(res.status).toBe(200)
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(USER_LIMIT))
    }
    expectLimited(await me(server, ana.access_token, address))
    expect((await me(server, bia.access_token, address)).status).toBe(200)
  })

  it("counts a request refused before its call (a malformed body), with a token already verified", async () => {
    const address = "203.0.113.4"
    await freshWindow("203.0.113.97")
    const ana = await registerAccount(server, {}, from(address))
    expect((await me(server, ana.access_token, address)).status).toBe(200)
    for (let i = 1; i < USER_LIMIT; i++) {
      const res = await call(server, "/api/v1/users/profile", {
        method: "PUT",
        body: '{"nome": "Ana',
        headers: { ...bearer(ana.access_token), ...from(address) }
      })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("MALFORMED_JSON")
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(USER_LIMIT - 1 - i))
    }
    expectLimited(await me(server, ana.access_token, address))
  })

  it("refuses an address past its budget, counting every user and the token-less routes from it", async () => {
    const address = "203.0.113.2"
    await freshWindow("203.0.113.98")
    // Registering counts against the address too: three here, then three calls per user make 12.
    const users = [
      await registerAccount(server, {}, from(address)),
      await registerAccount(server, {}, from(address)),
      await registerAccount(server, {}, from(address))
    ]
    for (const user of users) {
      for (let i = 0; i < 3; i++) expect((await me(server, user.access_token, address)).status).toBe(200)
    }
    // Each user has used 3 of their own 5: the address's budget is what refuses.
    expectLimited(await me(server, users[0]!.access_token, address))
    expectLimited(
      await call(server, "/api/v1/auth/login", {
        body: { email: "x@example.com", password: "y" },
        headers: from(address)
      })
    )
    expect((await me(server, users[0]!.access_token, "203.0.113.3")).status).toBe(200)
  })
})

const login = (email: string, password: string, address: string) =>
  call(server, "/api/v1/auth/login", { body: { email, password }, headers: from(address) })

describe("login throttle per address", () => {
  it("slows an address down past its threshold and then locks it, whatever the accounts tried", async () => {
    const address = "198.51.100.7"
    const { user } = await registerAccount(server, {}, from("198.51.100.200"))
    expect((await login("ninguem1@example.com", "errada123", address)).status).toBe(401)
    expect((await login("ninguem2@example.com", "errada123", address)).status).toBe(401)
    // The right password of a real account waits too: the address is guessing.
    const slowed = await login(user.email, "segredo123", address)
    expect(slowed.status).toBe(429)
    const wait = Number(slowed.headers.get("retry-after"))
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(2)
    // Another address is not slowed down by this one's failures.
    expect((await login(user.email, "segredo123", "198.51.100.8")).status).toBe(200)
    await new Promise((r) => setTimeout(r, wait * 1000 + 100))
    expect((await login("ninguem3@example.com", "errada123", address)).status).toBe(401)
    const again = await login("ninguem4@example.com", "errada123", address)
    expect(again.status).toBe(429)
    await new Promise((r) => setTimeout(r, Number(again.headers.get("retry-after")) * 1000 + 100))
    expect((await login("ninguem5@example.com", "errada123", address)).status).toBe(401)
    const locked = await login(user.email, "segredo123", address)
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60)
  }, 30_000)
})

describe("signing-key rotation", () => {
  it("verifies an older key's tokens until it is retired; new tokens carry the newest key", async () => {
    const database = await createSharedDatabase()
    const db = new pg.Client({ connectionString: database.url })
    const env = { FIDELIS_PASSWORD_COST: "10" }
    let first: TestServer | undefined
    let second: TestServer | undefined
    try {
      first = await startServer({ databaseUrl: database.url, env })
      const old = await registerAccount(first)
      expect(decodeProtectedHeader(old.access_token).kid).toBe("initial")
      await first.stop()
      first = undefined

      await db.connect()
      await db.query("INSERT INTO signing_keys (kid, secret) VALUES ('k2', $1)", [
        "a-newer-secret-of-32-bytes-or-more!"
      ])
      second = await startServer({ databaseUrl: database.url, env })
      const fresh = await call(second, "/api/v1/auth/login", {
        body: { email: old.user.email, password: "segredo123" }
      })
      expect(fresh.status).toBe(200)
      expect(decodeProtectedHeader(fresh.body.access_token).kid).toBe("k2")
      expect((await me(second, fresh.body.access_token, "192.0.2.1")).status).toBe(200)
      expect((await me(second, old.access_token, "192.0.2.1")).status).toBe(200)

      await db.query("UPDATE signing_keys SET retired_at = now() WHERE kid = 'initial'")
      const retired = await me(second, old.access_token, "192.0.2.1")
      expect(retired.status).toBe(401)
      expect(retired.headers.get("www-authenticate")).toContain('error="invalid_token"')
      expect((await me(second, fresh.body.access_token, "192.0.2.1")).status).toBe(200)
    } finally {
      await db.end().catch(() => undefined)
      await first?.stop()
      await second?.stop()
      await database.drop()
    }
  }, 120_000)
})
