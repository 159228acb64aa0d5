import { describe, expect, it } from "vitest"
import { call, emailedToken, fromAddress, registerAccount, useEndUserServer } from "../support/index.js"

/**
 * Attack: the lockout as a denial of service. A stranger locks an account with wrong passwords and
 * also spends its hour of account emails; its owner must still get in at once. The lock's 429
 * tells them how (a password-reset link), a link is in their mailbox (the limit leaves the ones it
 * counted working), and using it lifts the lock (docs/decisions.md "Lockout and the owner"). Here
 * the lock comes at the slow-down's threshold (5), so no test waits for the 2, 4, 8… s steps.
 */

const { server, sink } = await useEndUserServer({
  FIDELIS_TRUSTED_PROXIES: "127.0.0.1",
  FIDELIS_LOGIN_LOCK_AFTER: "5"
})

const login = (email: string, password: string, address: string) =>
  call(server, "/api/v1/auth/login", { body: { email, password }, headers: fromAddress(address) })

const askReset = (email: string, address: string) =>
  call(server, "/api/v1/auth/request-password-reset", { body: { email }, headers: fromAddress(address) })

describe("an account locked by a stranger", () => {
  it("lets its owner in through an emailed reset link, even with the email limit spent", async () => {
    const { user } = await registerAccount(server)
    const owner = "192.0.2.77"
    // The stranger, from many addresses: wrong passwords until the lock, then every email the hour allows.
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(user.email, `chute${i}errado`, `203.0.113.${100 + i}`))
    )
    expect(guesses.filter((res) => res.status === 401).length).toBeLessThanOrEqual(5)
    for (let i = 0; i < 4; i++) expect((await askReset(user.email, `203.0.113.${150 + i}`)).status).toBe(202)

    // The owner's right password is refused for now, with the way in.
    const locked = await login(user.email, "segredo123", owner)
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60)
    expect(locked.body.detail).toMatch(/password-reset link/)

    // Asking sends nothing more this hour, but the mailbox already holds a working link.
    expect((await askReset(user.email, owner)).status).toBe(202)
    const { token } = await emailedToken(sink, user.email, "reset_password")
    const reset = await call(server, "/api/v1/auth/reset-password", {
      body: { token, password: "minha-nova-senha-7" },
      headers: fromAddress(owner)
    })
    expect(reset.status).toBe(200)
    expect((await login(user.email, "minha-nova-senha-7", owner)).status).toBe(200)
  })
})
