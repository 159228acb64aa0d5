import { describe, expect, it } from "vitest"
import { call, fromAddress, manyAddressesEnv, registerAccount, useServer, type ApiResponse } from "../support/index.js"

/**
 * Attack: a flood of logins for unknown emails (each hashed against the decoy) made a real user's
 * login wait 117 s behind it. Hashing now runs through a bounded queue: past it a login is refused
 * at once with 503 and Retry-After (docs/decisions.md "Password hashing queue"), and the real user
 * gets in by retrying after that. One hashing slot, two waiting places and a cost that takes a
 * good part of a second make the flood overflow on any machine; each flood login comes from its
 * own address, as a botnet's would, so the login throttle does not stop it first.
 */

const server = useServer({
  env: {
    ...manyAddressesEnv,
    FIDELIS_PASSWORD_COST: "16",
    FIDELIS_PASSWORD_HASH_CONCURRENCY: "1",
    FIDELIS_PASSWORD_HASH_QUEUE: "2"
  }
})

const FLOOD = 60

const login = (email: string, password: string, address: string) =>
  call(server, "/api/v1/auth/login", { body: { email, password }, headers: fromAddress(address) })

/** Logs in as a client that honours 503's Retry-After would, a few times at most. */
const loginRetrying = async (email: string, password: string, address: string): Promise<ApiResponse> => {
  for (let attempt = 1; ; attempt++) {
    const res = await login(email, password, address)
    if (res.status !== 503 || attempt === 10) return res
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after")) * 1000))
  }
}

const expectBusy = (res: ApiResponse) => {
  expect(res.body).toMatchObject({
    code: "SERVICE_UNAVAILABLE",
    detail: { code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/password checks are waiting/) }
  })
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
}

describe("a flood of logins for unknown emails", () => {
  it("is refused past the hashing queue with 503 and Retry-After, while the real user still gets in", async () => {
    const { user } = await registerAccount(server)
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      login(`ninguem${i}.enchente@example.com`, "errada123", `10.20.${Math.floor(i / 200)}.${i % 200}`)
    )
    const real = loginRetrying(user.email, "segredo123", "192.0.2.50")
    const answers = await Promise.all(flood)

    expect((await real).status).toBe(200)
    const busy = answers.filter((res) => res.status === 503)
    expect(busy.length).toBeGreaterThan(0)
    for (const res of busy) expectBusy(res)
    expect(answers.every((res) => res.status === 401 || res.status === 503)).toBe(true)
  })

  it("answers tRPC's calls with the same 503, and counts a refused try against nobody", async () => {
    const address = "192.0.2.60"
    const trpc = (i: number) =>
      fetch(`${server.url}/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json", ...fromAddress(address) },
        body: JSON.stringify({ email: `ninguem${i}.trpc@example.com`, password: "errada123" })
      })
    // The address's 20 tries before it waits, all at once.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => trpc(i)))
    const busy = answers.filter((res) => res.status === 503)
    expect(busy.length).toBeGreaterThan(0)
    const body = (await busy[0]!.json()) as { error: { data: Record<string, unknown> } }
    expect(body.error.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", httpStatus: 503 })
    expect(Number(busy[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    // Only the checked passwords counted against the address: it still has a plain 401 for each
    // refused one, sent one at a time.
    for (let i = 0; i < busy.length; i++) expect((await trpc(100 + i)).status).toBe(401)
  })
})
