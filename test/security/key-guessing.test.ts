import { randomBytes, randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { call, createTenant, startServer, useServer, type ApiResponse } from "../support/index.js"

// Review 2, item 8: 2,000 wrong admin keys from one address got 2,000 × 401 in 4 s. Failed key
// authentications now count per client address on every surface; past the budget the address's
// keys, right ones too, meet 429 until the window ends. A weak FIDELIS_ADMIN_KEY stops the start.

const FAILURES_PER_MINUTE = 20
const server = useServer({
  env: {
    FIDELIS_KEY_FAILURES_PER_MINUTE: String(FAILURES_PER_MINUTE),
    // X-Forwarded-For from the trusted loopback proxy gives each test its own client address.
    FIDELIS_TRUSTED_PROXIES: "127.0.0.1"
  }
})

let addresses = 0
/** A client address of its own for each use, so tests do not share a budget. */
const newAddress = () => `198.51.100.${++addresses}`

const wrongKey = () => `fid_${randomBytes(24).toString("base64url")}`

const clients = (key: string, address: string) =>
  call(server, "/api/v1/public/clients", { key, headers: { "x-forwarded-for": address } })

const expectGuessingRefusal = (res: ApiResponse) => {
  expect(res.status).toBe(429)
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  expect(res.body).toMatchObject({
    code: "RATE_LIMIT_EXCEEDED",
    detail: expect.stringMatching(/Too many failed API key attempts from this address; retry in \d+ s/)
  })
}

describe("key guessing", () => {
  it("200 wrong keys from one address meet 429, and then a right key from there waits too", async () => {
    const tenant = await createTenant(server)
    const address = newAddress()
    const answers: ApiResponse[] = []
    for (let round = 0; round < 8; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 25 }, () => clients(wrongKey(), address)))))
    }
    const refused = answers.filter((res) => res.status === 429)
    const unauthenticated = answers.filter((res) => res.status === 401)
    expect(refused.length + unauthenticated.length).toBe(200)
    // A window may end during the run: at most two windows' worth of plain 401s.
    expect(unauthenticated.length).toBeLessThanOrEqual(2 * FAILURES_PER_MINUTE)
    expect(unauthenticated.length).toBeGreaterThanOrEqual(FAILURES_PER_MINUTE)
    for (const res of refused) expectGuessingRefusal(res)

    // Whether the key is right must not show while the address is refused: a guesser learns nothing.
    expectGuessingRefusal(await clients(tenant.key, address))
    expect((await clients(tenant.key, newAddress())).status).toBe(200)
  }, 120_000)

  it("counts failures on every surface against one budget: REST, tRPC, MCP and the admin routes", async () => {
    const address = newAddress()
    const headers = { "x-forwarded-for": address }
    const tries = [
      () => clients(wrongKey(), address),
      () => call(server, "/trpc/clients.list?input=%7B%7D", { key: wrongKey(), headers }),
      () =>
        call(server, "/mcp", {
          key: wrongKey(),
          headers: { ...headers, accept: "application/json, text/event-stream" },
          body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }
        }),
      () =>
        call(server, `/api/v1/internal/empresas/${randomUUID()}`, {
          key: `admin-${randomBytes(16).toString("hex")}`,
          headers
        })
    ]
    const statuses: number[] = []
    for (let i = 0; i < FAILURES_PER_MINUTE + tries.length; i++)
      statuses.push((await tries[i % tries.length]!()).status)
    expect(statuses.slice(0, FAILURES_PER_MINUTE)).toEqual(Array<number>(FAILURES_PER_MINUTE).fill(401))
    expect(statuses.slice(FAILURES_PER_MINUTE)).toEqual(tries.map(() => 429))
  }, 120_000)

  it("answers an unknown key and a revoked one alike", async () => {
    const tenant = await createTenant(server)
    const keys = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: server.adminKey })
    const revoke = await call(server, `/api/v1/internal/api-keys/${keys.body[0].id}`, {
      method: "DELETE",
      key: server.adminKey
    })
    expect(revoke.status).toBe(200)
    const address = newAddress()
    const revoked = await clients(tenant.key, address)
    const unknown = await clients(wrongKey(), address)
    expect(revoked.status).toBe(401)
    expect(revoked.body).toEqual({ ...unknown.body, request_id: revoked.body.request_id })
    expect(revoked.body.detail).toBe("Invalid or revoked API key")
  }, 60_000)

  it("refuses a FIDELIS_ADMIN_KEY under 128 bits, or made of words, at start, saying how to make one", async () => {
    for (const weak of ["admin-key-1234567890", "fidelis-production-admin-key-2026"]) {
      const start = startServer({ env: { FIDELIS_ADMIN_KEY: weak }, embedded: true })
      const failure = await start.then(
        async (started) => {
          await started.stop()
          return "started"
        },
        (error: Error) => error.message
      )
      expect(failure).toMatch(/FIDELIS_ADMIN_KEY: too weak for an admin key/)
      expect(failure).toContain("openssl rand -hex 32")
      expect(failure).not.toContain(weak)
    }
  }, 120_000)
})
