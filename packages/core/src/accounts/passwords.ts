import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto"

/**
 * Password hashes: scrypt from node:crypto, stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` so a
 * hash made at one cost still verifies after FIDELIS_PASSWORD_COST changes. OWASP's parameters
 * are N=2^17, r=8, p=1 (cost 17, the default).
 */

const KEY_LENGTH = 64
const BLOCK_SIZE = 8
const PARALLELISM = 1

/** scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is below what N=2^17 takes. */
const memoryFor = (cost: number, r: number) => 2 * 128 * 2 ** cost * r

const derive = (password: string, salt: Buffer, cost: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    const options: ScryptOptions = { N: 2 ** cost, r, p, maxmem: memoryFor(cost, r) }
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    )
  })

export const hashPassword = (password: string, cost: number) =>
  Effect.gen(function* () {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, cost, BLOCK_SIZE, PARALLELISM)
    return ["scrypt", cost, BLOCK_SIZE, PARALLELISM, salt.toString("base64"), key.toString("base64")].join("$")
  })

/** Whether `password` matches `stored`; a hash in another format never matches. */
export const verifyPassword = (password: string, stored: string) =>
  Effect.gen(function* () {
    const [scheme, cost, r, p, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || salt === undefined || hash === undefined) return false
    const expected = Buffer.from(hash, "base64")
    const key = yield* derive(password, Buffer.from(salt, "base64"), Number(cost), Number(r), Number(p))
    return key.length === expected.length && timingSafeEqual(key, expected)
  })
