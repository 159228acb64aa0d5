import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { passwordProblem } from "../src/accounts/password-policy.js"
import { hashPassword, PasswordHashing, verifyPassword } from "../src/accounts/passwords.js"
import { Config, configFromEnv } from "../src/config.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

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

/** Runs `use` with a hashing queue of one slot and `queue` waiting places. */
const withOneSlot = <A, E>(queue: number, use: (passwords: PasswordHashing) => Effect.Effect<A, E>) => {
  const env = {
    FIDELIS_PASSWORD_COST: "12",
    FIDELIS_PASSWORD_HASH_CONCURRENCY: "1",
    FIDELIS_PASSWORD_HASH_QUEUE: `${queue}`
  }
  const layer = PasswordHashing.Default.pipe(Layer.provide(Config.layer(configFromEnv(env))))
  return run(Effect.provide(Effect.flatMap(PasswordHashing, use), layer))
}

describe("the password hashing queue", () => {
  it("runs as many hashes as it has slots and queue, and refuses the rest at once with Unavailable", async () => {
    const exits = await withOneSlot(2, (passwords) =>
      Effect.all(
        Array.from({ length: 8 }, (_, i) => Effect.exit(passwords.hash(`senha-${i}-comprida`))),
        { concurrency: "unbounded" }
      )
    )
    expect(exits.filter(Exit.isSuccess)).toHaveLength(3)
    const refused = exits.flatMap((exit) => (Exit.isFailure(exit) ? [exit.cause] : []))
    expect(refused).toHaveLength(5)
    for (const cause of refused) {
      expect(cause).toMatchObject({ error: { _tag: "Unavailable", retryAfter: expect.any(Number) } })
    }
  })

  it("takes new hashes again once the queue has drained, and verifies through it", async () => {
    const verified = await withOneSlot(0, (passwords) =>
      Effect.gen(function* () {
        const stored = yield* passwords.hash("segredo123")
        return (yield* passwords.verify("segredo123", stored)) && !(yield* passwords.verify("segredo124", stored))
      })
    )
    expect(verified).toBe(true)
  })
})

describe("the password policy", () => {
  const ana = { email: "ana.lu@example.com", nome: "Ana Lu" }

  it("leaves a good password alone, and a name or email part too short to matter", () => {
    expect(passwordProblem("correct horse battery", ana)).toBeUndefined()
    expect(passwordProblem("banana-lua-2024", ana)).toBeUndefined()
  })

  it("refuses a common password after folding case and accents", () => {
    expect(passwordProblem("SÉNHA123", ana)?.type).toBe("password_too_common")
  })

  it("refuses the email's name before the @ once it is long enough", () => {
    expect(passwordProblem("x-ana.lu-x", ana)?.type).toBe("password_personal")
  })
})
