import { Duration, Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto"
import { Config } from "../config.js"
import { Unavailable } from "../errors.js"

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

const BUSY = "Too many password checks are waiting on this server; retry in a moment"

/**
 * The server's password hashing (docs/decisions.md "Password hashing queue"): register, login (the
 * decoy for an unknown email included) and reset all hash here, at most FIDELIS_PASSWORD_HASH_CONCURRENCY
 * at once, so a flood holds neither every core nor the memory scrypt takes, nor Node's thread pool.
 * At most FIDELIS_PASSWORD_HASH_QUEUE more wait their turn, first come first served; past them a
 * request is refused at once with 503 and a Retry-After of the queue's expected wait, instead of
 * waiting behind the flood.
 */
export class PasswordHashing extends Effect.Service<PasswordHashing>()("core/PasswordHashing", {
  effect: Effect.gen(function* () {
    const { accounts: config } = yield* Config
    const slots = yield* Effect.makeSemaphore(config.hashConcurrency)
    // Hashes running or waiting, and how long one takes (a moving average, for Retry-After).
    let admitted = 0
    let secondsEach = 0.2

    const queued = <A>(work: Effect.Effect<A>) =>
      Effect.suspend(() => {
        if (admitted >= config.hashConcurrency + config.hashQueue) {
          const wait = Math.ceil((admitted / config.hashConcurrency) * secondsEach)
          return Effect.fail(new Unavailable({ retryAfter: Math.max(1, wait), reason: BUSY }))
        }
        admitted++
        return slots
          .withPermits(1)(Effect.timed(work))
          .pipe(
            Effect.map(([took, result]) => {
              secondsEach = 0.8 * secondsEach + 0.2 * Duration.toSeconds(took)
              return result
            }),
            Effect.ensuring(Effect.sync(() => admitted--))
          )
      })

    return {
      hash: (password: string) => queued(hashPassword(password, config.passwordCost)),
      verify: (password: string, stored: string) => queued(verifyPassword(password, stored))
    }
  })
}) {}
