import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { hashPassword, verifyPassword } from "../src/accounts/passwords.js"

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

describe("password hashes", () => {
  it("verify the right password only, in constant format with their parameters", async () => {
    const stored = await run(hashPassword("segredo123", 10))
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$[^$]+\$[^$]+$/)
    expect(await run(verifyPassword("segredo123", stored))).toBe(true)
    expect(await run(verifyPassword("segredo124", stored))).toBe(false)
  })

  it("keep verifying after the cost changes, since each hash carries its own", async () => {
    const old = await run(hashPassword("segredo123", 11))
    const current = await run(hashPassword("segredo123", 10))
    expect(old).not.toBe(current)
    expect(await run(verifyPassword("segredo123", old))).toBe(true)
  })

  it("never match a hash in another format", async () => {
    expect(await run(verifyPassword("segredo123", "plain:segredo123"))).toBe(false)
  })
})
