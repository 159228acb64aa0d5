import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Exit, Runtime, type Scope } from "effect"
import { Config } from "../config.js"
import { Unavailable } from "../errors.js"
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

/** Where the windows are counted; an unreachable counter store is `Unavailable` (503). */
interface Counters {
  readonly hit: (bucket: string, limit: number) => Effect.Effect<RateWindow, Unavailable>
  readonly sweep: Effect.Effect<void>
}

interface Waiter {
  readonly limit: number
  readonly resume: (window: Effect.Effect<RateWindow, Unavailable>) => void
}

/** One bucket's count after adding `n` hits, with its window's end and the counter's clock (epoch seconds). */
interface Increment {
  readonly count: number
  readonly reset: number
  readonly now: number
}

/**
 * Hits on one bucket, group-committed over a shared counter: while an increment is in flight, the
 * hits that arrive queue up and go in the next one as a single `count + n`, whose result numbers
 * them one by one. Every hit still gets its exact position in the window (so the 61st is refused
 * across processes), at one round trip per batch instead of per request.
 */
const batched = (increment: (bucket: string, n: number) => Effect.Effect<Increment, Unavailable>) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const queues = new Map<string, { pending: Waiter[]; flushing: boolean }>()

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
                : Effect.failCause(exit.cause)
            )
          )
          queue.flushing = false
          if (queue.pending.length > 0) flush(bucket)
          else queues.delete(bucket)
        }
      })
    }

    return (bucket: string, limit: number) =>
      Effect.async<RateWindow, Unavailable>((resume) => {
        const queue = queues.get(bucket) ?? { pending: [], flushing: false }
        queues.set(bucket, queue)
        queue.pending.push({ limit, resume })
        if (!queue.flushing) flush(bucket)
      }).pipe(span("RateLimiter.hit"))
  })

/**
 * Fixed one-minute windows counted in Postgres, so every server process on a database shares one
 * budget per bucket. The counters table is UNLOGGED: a crash loses at most a minute of counts.
 */
const postgresCounters = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const increment = (bucket: string, n: number) =>
    sql<Increment>`
      INSERT INTO rate_limit_counters (bucket, window_start, count)
      VALUES (${bucket}, date_trunc('minute', now()), ${n})
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + ${n}
      RETURNING count,
        extract(epoch FROM window_start)::bigint + ${WINDOW_SECONDS} AS reset,
        extract(epoch FROM now())::float8 AS now`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  const { sweep } = sqlErrorsAsDefects({
    sweep: sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 minutes'`.pipe(Effect.asVoid)
  })
  return { hit: yield* batched(increment), sweep: sweep.pipe(span("RateLimiter.sweep")) }
})

/**
 * The same windows in Redis: the window is taken from Redis's clock and the count added and given
 * its expiry in one script, so every process agrees on both in one round trip. The key is built
 * inside the script from the window, so it assumes one Redis (not a cluster).
 */
const INCREMENT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1])
local window = now - now % ${WINDOW_SECONDS}
local key = KEYS[1] .. ':' .. window
local count = redis.call('INCRBY', key, ARGV[1])
if count == tonumber(ARGV[1]) then redis.call('EXPIRE', key, ${2 * WINDOW_SECONDS}) end
return {count, window + ${WINDOW_SECONDS}, time[1] .. '.' .. string.format('%06d', tonumber(time[2]))}`

/** How long a client is told to wait when Redis cannot be reached. */
const REDIS_RETRY_AFTER_SECONDS = 5

/**
 * An unreachable Redis refuses the request (503, `Unavailable`) instead of counting elsewhere: a
 * fallback to Postgres or memory would split the budget between processes that reach Redis and
 * those that do not, and the budget is what the limiter promises (docs/decisions.md).
 */
const redisCounters = (url: string) =>
  Effect.gen(function* () {
    // Only with REDIS_URL: ioredis defines a method per Redis command as it loads, which every CLI
    // command paid for (docs/decisions.md, "CLI start-up").
    const { Redis } = yield* Effect.promise(() => import("ioredis"))
    const redis = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new Redis(url, {
            // Fail a command at once while disconnected instead of queueing it until Redis returns.
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            commandTimeout: 2_000,
            connectionName: "fidelis-rate-limiter"
          })
      ),
      (client) => Effect.promise(() => client.quit().catch(() => client.disconnect()))
    )
    // A refused connection is reported on each command; ioredis would also log it as unhandled.
    redis.on("error", () => undefined)
    const increment = (bucket: string, n: number) =>
      Effect.tryPromise({
        try: () => redis.eval(INCREMENT_SCRIPT, 1, `fidelis:rate:${bucket}`, n) as Promise<[number, number, string]>,
        catch: () => new Unavailable({ retryAfter: REDIS_RETRY_AFTER_SECONDS })
      }).pipe(Effect.map(([count, reset, now]) => ({ count, reset, now: Number(now) })))
    // Redis expires each window's key on its own.
    return { hit: yield* batched(increment), sweep: Effect.void }
  })

/**
 * The same windows counted in this process. Used only with the embedded database, which exactly
 * one process can open (design.md section 2), so the count is still the whole budget.
 */
const localCounters = Effect.sync(() => {
  const counters = new Map<string, { window: number; count: number }>()
  return {
    hit: (bucket: string, limit: number) =>
      Effect.sync((): RateWindow => {
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
  scoped: Effect.gen(function* (): Effect.fn.Return<Counters, never, Config | SqlClient.SqlClient | Scope.Scope> {
    const config = yield* Config
    if (config.redisUrl !== undefined) return yield* redisCounters(config.redisUrl)
    return yield* config.databaseUrl === undefined ? localCounters : postgresCounters
  })
}) {}
