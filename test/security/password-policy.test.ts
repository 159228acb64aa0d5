import { describe, expect, it } from "vitest"
import { call, emailedToken, registerAccount, uniqueEmail, useEndUserServer } from "../support/index.js"

/**
 * Attack: an account protected by "12345678", "password", eight spaces or its owner's own name
 * falls to the first guesses, throttle or not. Register and reset refuse such a password with 422
 * at `body.password`, saying why (docs/decisions.md "Password policy").
 */

const { server, sink } = await useEndUserServer()

const register = (body: Record<string, unknown>) =>
  call(server, "/api/v1/auth/register", { body: { email: uniqueEmail(), nome: "Ana", ...body } })

const expectRefused = (res: { status: number; body: any }, type: string, words: RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422)
  expect(res.body.detail).toEqual([{ loc: ["body", "password"], msg: expect.stringMatching(words), type }])
}

describe("new passwords", () => {
  it("refuses the most common passwords, whatever their case", async () => {
    for (const password of ["12345678", "password", "Senha123", "iloveyou", "QWERTYUIOP"]) {
      expectRefused(await register({ password }), "password_too_common", /most common passwords/)
    }
  })

  it("refuses a blank password", async () => {
    expectRefused(await register({ password: "          " }), "password_blank", /blank/)
  })

  it("refuses a password that contains the account's email or name", async () => {
    const email = `mariana.costa${Date.now().toString(36)}@example.com`
    expectRefused(await register({ email, password: `${email.split("@")[0]}!` }), "password_personal", /email/)
    expectRefused(await register({ email, password: email.toUpperCase() }), "password_personal", /email/)
    expectRefused(
      await register({ nome: "Joaquim Conceição", password: "conceicao#2024" }),
      "password_personal",
      /your name/
    )
    // Nothing was created by the refusals: the same email registers once its password is fine.
    expect((await register({ email, password: "correct horse battery" })).status).toBe(201)
  })

  it("refuses the same over tRPC, in its error shape", async () => {
    const res = await fetch(`${server.url}/trpc/auth.register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: uniqueEmail(), nome: "Ana", password: "password1" })
    })
    expect(res.status).toBe(422)
    const body = (await res.json()) as { error: { data: Record<string, unknown> } }
    expect(body.error.data).toMatchObject({
      httpStatus: 422,
      detail: [{ loc: ["body", "password"], type: "password_too_common" }]
    })
  })

  it("refuses a weak password on reset too, and the link still works for a good one", async () => {
    const { user } = await registerAccount(server, { nome: "Beatriz Vasconcelos" })
    const asked = await call(server, "/api/v1/auth/request-password-reset", { body: { email: user.email } })
    expect(asked.status).toBe(202)
    const { token } = await emailedToken(sink, user.email, "reset_password")
    const reset = (password: string) => call(server, "/api/v1/auth/reset-password", { body: { token, password } })
    expectRefused(await reset("123456789"), "password_too_common", /most common passwords/)
    expectRefused(await reset("Vasconcelos99"), "password_personal", /your name/)
    expect((await reset("cavalo correto bateria")).status).toBe(200)
    const login = await call(server, "/api/v1/auth/login", {
      body: { email: user.email, password: "cavalo correto bateria" }
    })
    expect(login.status).toBe(200)
  })
})
