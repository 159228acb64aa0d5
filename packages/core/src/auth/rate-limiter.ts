import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

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

/**
 * Fixed one-minute windows counted in Postgres, so every server process on a database shares one
 * budget per bucket. One statement both counts and reads, so concurrent requests never lose a hit.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("core/RateLimiter", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const hit = Effect.fn("RateLimiter.hit")(function* (bucket: string, limit: number) {
      const [row] = yield* sql<{ count: number; reset: number; now: number }>`
        INSERT INTO rate_limit_counters (bucket, window_start, count)
        VALUES (${bucket}, date_trunc('minute', now()), 1)
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
        RETURNING count,
          extract(epoch FROM window_start)::bigint + 60 AS reset,
          extract(epoch FROM now())::float8 AS now`
      const { count, reset, now } = row!
      return {
        limit,
        remaining: Math.max(0, limit - count),
        reset,
        exceeded: count > limit,
        retryAfter: Math.max(1, Math.ceil(reset - now))
      } satisfies RateWindow
    })

    /** Drops windows that can no longer be read; run by the server's housekeeping job. */
    const sweep = sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 minutes'`.pipe(
      Effect.asVoid,
      Effect.withSpan("RateLimiter.sweep")
    )

    return { hit, sweep } as const
  })
}) {}
