import { describe, expect, it } from "vitest"
import { call, fromAddress, manyAddressesEnv, registerAccount, useServer, type ApiResponse } from "../support/index.js"

/**
 * Attack: parallel wrong passwords all passed the throttle's check before any failure was counted,
 * so 50 at once were 50 guesses. Each try is now counted before its password is checked: of any
 * burst, at most FIDELIS_LOGIN_SLOW_AFTER (5) tries per account and FIDELIS_LOGIN_IP_SLOW_AFTER (20)
 * per address are checked, the rest refused with 429 (docs/decisions.md "Login tries counted before
 * the password"). Those are the defaults; here the lock comes at the same counts, since the
 * slow-down lets one more try through every 2, 4, 8… s and a busy machine may take that long.
 */

const ACCOUNT_BURST = 5
const ADDRESS_BURST = 20

const server = useServer({
  env: {
    ...manyAddressesEnv,
    FIDELIS_LOGIN_LOCK_AFTER: String(ACCOUNT_BURST),
    FIDELIS_LOGIN_IP_LOCK_AFTER: String(ADDRESS_BURST)
  }
})

const restLogin = (email: string, password: string, address: string) =>
  call(server, "/api/v1/auth/login", { body: { email, password }, headers: fromAddress(address) })

/** A login over tRPC, one call per request (what a batch is no longer allowed to carry). */
const trpcLogin = async (email: string, password: string, address: string) => {
  const res = await fetch(`${server.url}/trpc/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...fromAddress(address) },
    body: JSON.stringify({ email, password })
  })
  return { status: res.status, headers: res.headers }
}

const statuses = (answers: ReadonlyArray<Pick<ApiResponse, "status">>) =>
  answers.reduce<Record<number, number>>((count, { status }) => ({ ...count, [status]: (count[status] ?? 0) + 1 }), {})

describe("parallel login tries", () => {
  it("checks at most 5 of 50 parallel wrong passwords for one account (REST, tRPC); the rest get 429", async () => {
    const { user } = await registerAccount(server)
    const address = "203.0.113.20"
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0 ? restLogin(user.email, `errada${i}xx`, address) : trpcLogin(user.email, `errada${i}xx`, address)
      )
    )
    const count = statuses(answers)
    expect(Object.keys(count).toSorted()).toEqual(["401", "429"])
    expect(count[401]).toBeLessThanOrEqual(ACCOUNT_BURST)
    expect(count[429]).toBeGreaterThanOrEqual(50 - ACCOUNT_BURST)
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }
    // The account is now locked for everyone, the right password included, wherever it comes from.
    expect((await restLogin(user.email, "segredo123", "203.0.113.21")).status).toBe(429)
  })

  it("checks at most 20 of 50 parallel wrong logins from one address, whatever the accounts", async () => {
    const address = "203.0.113.22"
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => restLogin(`ninguem${i}.paralelo@example.com`, "errada123", address))
    )
    const count = statuses(answers)
    expect(Object.keys(count).toSorted()).toEqual(["401", "429"])
    expect(count[401]).toBeLessThanOrEqual(ADDRESS_BURST)
    expect(count[429]).toBeGreaterThanOrEqual(50 - ADDRESS_BURST)
    // Another address is not slowed down by this one.
    const { user } = await registerAccount(server)
    expect((await restLogin(user.email, "segredo123", "203.0.113.23")).status).toBe(200)
  })

  it("gives a success's count back: an address's logins that succeed never slow it down", async () => {
    const { user } = await registerAccount(server)
    const address = "203.0.113.24"
    for (let i = 0; i < ADDRESS_BURST + 5; i++) {
      expect((await restLogin(user.email, "segredo123", address)).status).toBe(200)
    }
    // A wrong password after them is a plain 401: the successes left nothing on the address or the account.
    expect((await restLogin(user.email, "errada9xx", address)).status).toBe(401)
    expect((await restLogin(user.email, "segredo123", address)).status).toBe(200)
  })
})
