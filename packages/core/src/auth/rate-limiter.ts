import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Exit, Runtime } from "effect"
import { Config } from "../config.js"
import { span } from "../tracing.js"

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

interface Waiter {
  readonly limit: number
  readonly resume: (window: Effect.Effect<RateWindow>) => void
}

/**
 * Fixed one-minute windows counted in Postgres, so every server process on a database shares one
 * budget per bucket. Hits on one bucket are group-committed: while an increment is in flight, the
 * hits that arrive queue up and go in the next one as a single `count + n`, whose result numbers
 * them one by one. Every hit still gets its exact position in the window (so the 61st is refused
 * across processes), at one round trip per batch instead of per request.
 */
const sharedCounters = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const runtime = yield* Effect.runtime<never>()
  const queues = new Map<string, { pending: Waiter[]; flushing: boolean }>()

  const increment = (bucket: string, n: number) =>
    sql<{ count: number; reset: number; now: number }>`
      INSERT INTO rate_limit_counters (bucket, window_start, count)
      VALUES (${bucket}, date_trunc('minute', now()), ${n})
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + ${n}
      RETURNING count,
        extract(epoch FROM window_start)::bigint + ${WINDOW_SECONDS} AS reset,
        extract(epoch FROM now())::float8 AS now`.pipe(Effect.map((rows) => rows[0]!))

  const flush = (bucket: string) => {
    const queue = queues.get(bucket)!
    const batch = queue.pending.splice(0)
    queue.flushing = true
    Runtime.runCallback(runtime)(increment(bucket, batch.length), {
      onExit: (exit) => {
        batch.forEach((waiter, i) =>
          waiter.resume(
            Exit.isSuccess(exit)
              ? Effect.succeed(
                  windowOf(exit.value.count - batch.length + 1 + i, waiter.limit, exit.value.reset, exit.value.now)
                )
              : Effect.failCause(exit.cause).pipe(Effect.orDie)
          )
        )
        queue.flushing = false
        if (queue.pending.length > 0) flush(bucket)
        else queues.delete(bucket)
      }
    })
  }

  return sqlErrorsAsDefects({
    hit: (bucket: string, limit: number) =>
      Effect.async<RateWindow>((resume) => {
        const queue = queues.get(bucket) ?? { pending: [], flushing: false }
        queues.set(bucket, queue)
        queue.pending.push({ limit, resume })
        if (!queue.flushing) flush(bucket)
      }).pipe(span("RateLimiter.hit")),
    sweep: sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 minutes'`.pipe(
      Effect.asVoid,
      span("RateLimiter.sweep")
    )
  })
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
