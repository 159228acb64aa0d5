import { describe, expect, it } from "vitest"
import { call, fromAddress, manyAddressesEnv, registerAccount, useServer, type TestServer } from "../support/index.js"

/**
 * Attack: one POST to `/trpc/auth.login,…(×100)?batch=1` checked 100 passwords in one request and
 * slipped past the login throttle (99 wrong and 1 right logged in). Authentication calls are not
 * batchable: inside a batch each is refused with 400 before any password is checked
 * (docs/decisions.md "Authentication calls are not batchable").
 */

const server = useServer({ env: manyAddressesEnv })

interface Slot {
  readonly result?: { readonly data: unknown }
  readonly error?: { readonly data: { readonly httpStatus: number; readonly error_code: string; detail: unknown } }
}

/** One HTTP request in tRPC's batch format: the calls of `path` with `inputs`, keyed "0".."n-1". */
const batch = async (target: TestServer, path: string, inputs: ReadonlyArray<unknown>, address: string) => {
  const res = await fetch(`${target.url}/trpc/${inputs.map(() => path).join(",")}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json", ...fromAddress(address) },
    body: JSON.stringify(Object.fromEntries(inputs.map((input, i) => [String(i), input])))
  })
  return { status: res.status, slots: (await res.json()) as ReadonlyArray<Slot> }
}

const login = (email: string, password: string, address: string) =>
  call(server, "/api/v1/auth/login", { body: { email, password }, headers: fromAddress(address) })

const expectRefusedWhole = (answer: { status: number; slots: ReadonlyArray<Slot> }, calls: number) => {
  expect(answer.status).toBe(400)
  expect(answer.slots).toHaveLength(calls)
  for (const slot of answer.slots) {
    expect(slot.result).toBeUndefined()
    expect(slot.error?.data).toMatchObject({ httpStatus: 400, error_code: "BAD_REQUEST" })
    expect(slot.error?.data.detail).toMatch(/cannot share a request with other calls/)
  }
}

describe("login inside a tRPC batch", () => {
  it("refuses a batch of 100 logins (99 wrong, 1 right) with 400 and checks no password", async () => {
    const { user } = await registerAccount(server)
    const inputs = Array.from({ length: 100 }, (_, i) => ({
      email: user.email,
      password: i === 57 ? "segredo123" : `errada${i}xx`
    }))
    expectRefusedWhole(await batch(server, "auth.login", inputs, "198.51.100.10"), 100)
    // Nothing was counted against the account or the address: four wrong tries are plain 401s (past
    // five, each try waits), and the right password then logs in.
    for (let i = 0; i < 4; i++) expect((await login(user.email, "errada999", "198.51.100.10")).status).toBe(401)
    expect((await login(user.email, "segredo123", "198.51.100.10")).status).toBe(200)
  })

  it("refuses three parallel batches from a fresh address: no guess checked, none answered 401", async () => {
    const { user } = await registerAccount(server)
    const inputs = Array.from({ length: 100 }, (_, i) => ({ email: user.email, password: `guess${i}xyz` }))
    const answers = await Promise.all([1, 2, 3].map(() => batch(server, "auth.login", inputs, "198.51.100.11")))
    for (const answer of answers) expectRefusedWhole(answer, 100)
    expect((await login(user.email, "segredo123", "198.51.100.11")).status).toBe(200)
  })

  it("refuses every authentication call inside a batch, and a login beside another call", async () => {
    const cases: ReadonlyArray<readonly [string, unknown]> = [
      ["auth.register", { email: "lote@example.com", password: "uma-senha-boa", nome: "Lote" }],
      ["auth.refresh", { refresh_token: "rt_nothing" }],
      ["auth.logout", { refresh_token: "rt_nothing" }],
      ["auth.verifyEmail", { token: "nothing" }],
      ["auth.requestPasswordReset", { email: "lote@example.com" }],
      ["auth.resetPassword", { token: "nothing", password: "uma-senha-boa" }]
    ]
    for (const [path, input] of cases) expectRefusedWhole(await batch(server, path, [input, input], "198.51.100.12"), 2)
    // No account was made by the refused registrations.
    expect((await login("lote@example.com", "uma-senha-boa", "198.51.100.13")).status).toBe(401)

    const res = await fetch(`${server.url}/trpc/auth.login,users.updateProfile?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fromAddress("198.51.100.12") },
      body: JSON.stringify({ "0": { email: "lote@example.com", password: "x" }, "1": { nome: "Lote" } })
    })
    const [first] = (await res.json()) as ReadonlyArray<Slot>
    expect(first?.error?.data).toMatchObject({ httpStatus: 400, error_code: "BAD_REQUEST" })
  })

  it("still answers a login sent alone, with or without tRPC's batch format (httpBatchLink's one call)", async () => {
    const { user } = await registerAccount(server)
    const single = await batch(server, "auth.login", [{ email: user.email, password: "segredo123" }], "198.51.100.14")
    expect(single.status).toBe(200)
    expect(single.slots[0]?.result?.data).toMatchObject({ user: { email: user.email } })
    const plain = await fetch(`${server.url}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fromAddress("198.51.100.14") },
      body: JSON.stringify({ email: user.email, password: "segredo123" })
    })
    expect(plain.status).toBe(200)
  })
})
