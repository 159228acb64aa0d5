import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Config } from "../config.js"

/** The state of one budget after counting a request, as the `X-RateLimit-*` headers show it. */
export interface RateWindow {
  readonly limit: number
  readonly remaining: number
  /** Epoch seconds at which the window resets. */
  readonly reset: number
  readonly exceeded: boolean
  /** Seconds until a retry can succeed (at least 1). */
  readonly retryAfter: number
}

const WINDOW_SECONDS = 60

const windowOf = (count: number, limit: number, reset: number, now: number): RateWindow => ({
  limit,
  remaining: Math.max(0, limit - count),
  reset,
  exceeded: count > limit,
  retryAfter: Math.max(1, Math.ceil(reset - now))
})

/**
 * Fixed one-minute windows counted in Postgres, so every server process on a database shares one
 * budget per bucket. One statement both counts and reads, so concurrent requests never lose a hit.
 */
const sharedCounters = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    hit: Effect.fn("RateLimiter.hit")(function* (bucket: string, limit: number) {
      const [row] = yield* sql<{ count: number; reset: number; now: number }>`
        INSERT INTO rate_limit_counters (bucket, window_start, count)
        VALUES (${bucket}, date_trunc('minute', now()), 1)
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
        RETURNING count,
          extract(epoch FROM window_start)::bigint + ${WINDOW_SECONDS} AS reset,
          extract(epoch FROM now())::float8 AS now`
      return windowOf(row!.count, limit, row!.reset, row!.now)
    }),
    sweep: sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 minutes'`.pipe(
      Effect.asVoid,
      Effect.withSpan("RateLimiter.sweep")
    )
  }
})

/**
 * The same windows counted in this process. Used only with the embedded database, which exactly
 * one process can open (design.md section 2), so the count is still the whole budget.
 */
const localCounters = Effect.sync(() => {
  const counters = new Map<string, { window: number; count: number }>()
  return {
    hit: (bucket: string, limit: number) =>
      Effect.sync(() => {
        const now = Date.now() / 1000
        const window = Math.floor(now / WINDOW_SECONDS) * WINDOW_SECONDS
        const current = counters.get(bucket)
        const count = current?.window === window ? current.count + 1 : 1
        counters.set(bucket, { window, count })
        return windowOf(count, limit, window + WINDOW_SECONDS, now)
      }),
    sweep: Effect.sync(() => {
      const current = Math.floor(Date.now() / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS
      for (const [bucket, { window }] of counters) if (window < current) counters.delete(bucket)
    })
  }
})

export class RateLimiter extends Effect.Service<RateLimiter>()("core/RateLimiter", {
  accessors: true,
  effect: Effect.flatMap(Config, (config) => (config.databaseUrl === undefined ? localCounters : sharedCounters))
}) {}
