import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Exit, Runtime, type Scope } from "effect"
import { Config } from "./config.js"
import { Unavailable } from "./errors.js"
import { span } from "./tracing.js"

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

/** A budget a hit counts against: its bucket and how many hits a minute it allows. */
export interface Budget {
  readonly bucket: string
  readonly limit: number
}

/** Where the windows are counted; an unreachable counter store is `Unavailable` (503). */
interface Counters {
  /** One hit on each budget at once (one round trip), its windows in the budgets' order. */
  readonly hit: (budgets: ReadonlyArray<Budget>) => Effect.Effect<ReadonlyArray<RateWindow>, Unavailable>
  readonly sweep: Effect.Effect<void>
}

interface Waiter {
  readonly budgets: ReadonlyArray<Budget>
  readonly resume: (windows: Effect.Effect<ReadonlyArray<RateWindow>, Unavailable>) => void
}

/**
 * The buckets' counts after adding `n` hits to each (in the buckets' order), with the window's end
 * and the counter's clock (epoch seconds).
 */
interface Increment {
  readonly counts: ReadonlyArray<number>
  readonly reset: number
  readonly now: number
}

/**
 * Hits on one set of buckets, group-committed over a shared counter: while an increment is in
 * flight, the hits that arrive queue up and go in the next one as a single `count + n` per bucket,
 * whose result numbers them one by one. Every hit still gets its exact position in each window (so
 * the 61st is refused across processes), at one round trip per batch instead of per request and
 * budget.
 */
const batched = (increment: (buckets: ReadonlyArray<string>, n: number) => Effect.Effect<Increment, Unavailable>) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const queues = new Map<string, { pending: Waiter[]; flushing: boolean }>()

    const flush = (key: string, buckets: ReadonlyArray<string>) => {
      const queue = queues.get(key)!
      const batch = queue.pending.splice(0)
      queue.flushing = true
      Runtime.runCallback(runtime)(increment(buckets, batch.length), {
        onExit: (exit) => {
          batch.forEach((waiter, i) =>
            waiter.resume(
              Exit.isSuccess(exit)
                ? Effect.succeed(
                    waiter.budgets.map(({ limit }, b) =>
                      windowOf(exit.value.counts[b]! - batch.length + 1 + i, limit, exit.value.reset, exit.value.now)
                    )
                  )
                : Effect.failCause(exit.cause)
            )
          )
          queue.flushing = false
          if (queue.pending.length > 0) flush(key, buckets)
          else queues.delete(key)
        }
      })
    }

    return (budgets: ReadonlyArray<Budget>) =>
      Effect.async<ReadonlyArray<RateWindow>, Unavailable>((resume) => {
        const buckets = budgets.map((budget) => budget.bucket)
        // Bucket names never hold a NUL (the input check refuses them; the rest are ids).
        const key = buckets.join("\0")
        const queue = queues.get(key) ?? { pending: [], flushing: false }
        queues.set(key, queue)
        queue.pending.push({ budgets, resume })
        if (!queue.flushing) flush(key, buckets)
      }).pipe(span("RateLimiter.hit"))
  })

/**
 * Fixed one-minute windows counted in Postgres, so every server process on a database shares one
 * budget per bucket. The counters table is UNLOGGED: a crash loses at most a minute of counts.
 */
const postgresCounters = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The rows are locked in the buckets' order, the same in every statement, so two requests sharing
  // buckets never wait on each other in a cycle.
  const increment = (buckets: ReadonlyArray<string>, n: number) =>
    sql<{ bucket: string; count: number; reset: number; now: number }>`
      INSERT INTO rate_limit_counters (bucket, window_start, count)
      SELECT bucket, date_trunc('minute', now()), ${n}
      FROM (VALUES ${sql.csv(buckets.map((bucket) => sql`(${bucket})`))}) v (bucket) ORDER BY bucket
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + ${n}
      RETURNING bucket, count,
        extract(epoch FROM window_start)::bigint + ${WINDOW_SECONDS} AS reset,
        extract(epoch FROM now())::float8 AS now`.pipe(
      Effect.map((rows): Increment => {
        const counts = new Map(rows.map((row) => [row.bucket, row.count]))
        return { counts: buckets.map((bucket) => counts.get(bucket)!), reset: rows[0]!.reset, now: rows[0]!.now }
      }),
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
local n = tonumber(ARGV[1])
local counts = {}
for i, bucket in ipairs(KEYS) do
  local key = bucket .. ':' .. window
  counts[i] = redis.call('INCRBY', key, n)
  if counts[i] == n then redis.call('EXPIRE', key, ${2 * WINDOW_SECONDS}) end
end
return {counts, window + ${WINDOW_SECONDS}, time[1] .. '.' .. string.format('%06d', tonumber(time[2]))}`

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
    const increment = (buckets: ReadonlyArray<string>, n: number) =>
      Effect.tryPromise({
        try: () =>
          redis.eval(
            INCREMENT_SCRIPT,
            buckets.length,
            ...buckets.map((bucket) => `fidelis:rate:${bucket}`),
            n
          ) as Promise<[number[], number, string]>,
        catch: () => new Unavailable({ retryAfter: REDIS_RETRY_AFTER_SECONDS })
      }).pipe(Effect.map(([counts, reset, now]): Increment => ({ counts, reset, now: Number(now) })))
    // Redis expires each window's key on its own.
    return { hit: yield* batched(increment), sweep: Effect.void }
  })

/**
 * The same windows counted in this process. Used only with the embedded database, which exactly
 * one process can open (docs/architecture.md, "Storage"), so the count is still the whole budget.
 */
const localCounters = Effect.sync(() => {
  const counters = new Map<string, { window: number; count: number }>()
  return {
    hit: (budgets: ReadonlyArray<Budget>) =>
      Effect.sync(() => {
        const now = Date.now() / 1000
        const window = Math.floor(now / WINDOW_SECONDS) * WINDOW_SECONDS
        return budgets.map(({ bucket, limit }): RateWindow => {
          const current = counters.get(bucket)
          const count = current?.window === window ? current.count + 1 : 1
          counters.set(bucket, { window, count })
          return windowOf(count, limit, window + WINDOW_SECONDS, now)
        })
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
