import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { RateLimiter } from "../src/rate-limiter.js"
import { testCore } from "./support.js"

/**
 * Several budgets counted by one hit (a bearer call: the user's and the address's), on the store
 * the test database gives (Postgres, or this process's counters on the embedded one) and on Redis
 * when TEST_REDIS_URL is set. Concurrent hits on overlapping sets of buckets still number each
 * bucket's hits exactly.
 */
const stores: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ["the database's counters", {}],
  ...(process.env["TEST_REDIS_URL"] ? [["Redis", { REDIS_URL: process.env["TEST_REDIS_URL"] }] as const] : [])
]

for (const [store, env] of stores) {
  layer(testCore(env), { timeout: 60_000 })(`RateLimiter on ${store}`, (it) => {
    it.effect("counts every budget of a hit, in the budgets' order, each against its own limit", () =>
      Effect.gen(function* () {
        const run = crypto.randomUUID()
        const budgets = [
          { bucket: `test:${run}:user`, limit: 3 },
          { bucket: `test:${run}:address`, limit: 5 }
        ]
        const hits = yield* Effect.all(
          Array.from({ length: 6 }, () => RateLimiter.hit(budgets)),
          { concurrency: "unbounded" }
        )
        const numbered = (index: number) =>
          hits.map((windows) => windows[index]!).toSorted((a, b) => b.remaining - a.remaining)
        expect(numbered(0).map((window) => [window.limit, window.remaining, window.exceeded])).toEqual([
          [3, 2, false],
          [3, 1, false],
          [3, 0, false],
          [3, 0, true],
          [3, 0, true],
          [3, 0, true]
        ])
        expect(numbered(1).filter((window) => window.exceeded)).toHaveLength(1)
        expect(numbered(1).map((window) => window.remaining)).toEqual([4, 3, 2, 1, 0, 0])
      })
    )

    it.effect("numbers a bucket's hits exactly when hits on other sets of buckets share it", () =>
      Effect.gen(function* () {
        const run = crypto.randomUUID()
        const [a, shared, c] = ["a", "shared", "c"].map((name) => ({ bucket: `test:${run}:${name}`, limit: 100 }))
        const sets = Array.from({ length: 30 }, (_, i) => [[shared!], [a!, shared!], [shared!, c!]][i % 3]!)
        const hits = yield* Effect.all(
          sets.map((budgets) => RateLimiter.hit(budgets)),
          { concurrency: "unbounded" }
        )
        const remaining = hits.map((windows, i) => windows[sets[i]!.indexOf(shared!)]!.remaining)
        expect(remaining.toSorted((x, y) => y - x)).toEqual(Array.from({ length: 30 }, (_, i) => 99 - i))
      })
    )
  })
}
