import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schedule, TestServices } from "effect"
import { JobFailed, type ClaimedJob } from "../src/jobs/contracts.js"
import { Jobs } from "../src/jobs/service.js"
import type { JobHandler } from "../src/jobs/contracts.js"
import { runWorker } from "../src/jobs/worker.js"
import { testCore } from "./support.js"

/** Backoff of 1 s doubling to at most 4 s, three tries, and a 2 s lease. */
const TestJobs = testCore({
  FIDELIS_JOB_MAX_ATTEMPTS: "3",
  FIDELIS_JOB_BACKOFF_BASE_SECONDS: "1",
  FIDELIS_JOB_BACKOFF_MAX_SECONDS: "4",
  FIDELIS_JOB_LEASE_SECONDS: "2"
})

let queues = 0
/** Each test its own queue, so their jobs never meet. */
const freshQueue = () => `test-${++queues}-${Math.random().toString(36).slice(2, 8)}`

const stateOf = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ state: string; attempts: number; due_in: number; last_error: string | null }>`
      SELECT state, attempts, extract(epoch FROM run_at - now())::float8 AS due_in, last_error
      FROM jobs WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]!))
  )

/** Makes a job due now (the test does not wait out its backoff). */
const dueNow = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE jobs SET run_at = now() WHERE id = ${id}`)

// Each test runs on the real clock (leases, backoffs, workers), not the test clock it.effect gives.
layer(TestJobs, { timeout: 120_000 })("jobs", (it) => {
  it.effect("a failed try waits base x 2^(tries - 1), capped, with jitter; the last try ends dead", () =>
    Effect.gen(function* () {
      const jobs = yield* Jobs
      const queue = freshQueue()
      const id = yield* jobs.enqueue({ queue, payload: { n: 1 } })
      const waits: number[] = []
      for (let attempt = 1; attempt <= 3; attempt++) {
        const [job] = yield* jobs.claim(queue, "w1", 10)
        expect(job).toMatchObject({ id, attempts: attempt, max_attempts: 3, payload: { n: 1 } })
        const state = yield* jobs.fail(job!, `try ${attempt} failed`)
        const row = yield* stateOf(id)
        if (attempt < 3) {
          expect(state).toBe("pending")
          waits.push(row.due_in)
          // Not due yet: nothing to claim until the backoff passes.
          expect(yield* jobs.claim(queue, "w1", 10)).toEqual([])
          yield* dueNow(id)
        } else {
          expect(state).toBe("dead")
          expect(row).toMatchObject({ state: "dead", attempts: 3, last_error: "try 3 failed" })
        }
      }
      // 1 s, then 2 s, each ±25%.
      expect(waits[0]).toBeGreaterThan(0.7)
      expect(waits[0]).toBeLessThan(1.3)
      expect(waits[1]).toBeGreaterThan(1.45)
      expect(waits[1]).toBeLessThan(2.55)
      expect(yield* jobs.claim(queue, "w1", 10)).toEqual([])

      // The cap: a fifth try of a longer job waits at most 4 s (+25%), not 16.
      const long = yield* jobs.enqueue({ queue, payload: {}, maxAttempts: 10 })
      for (let attempt = 1; attempt <= 5; attempt++) {
        const [job] = yield* jobs.claim(queue, "w1", 10)
        yield* jobs.fail(job!, "again")
        if (attempt < 5) yield* dueNow(long)
      }
      const capped = yield* stateOf(long)
      expect(capped.due_in).toBeGreaterThan(2.9)
      expect(capped.due_in).toBeLessThan(5.1)

      // A permanent failure is dead at its first try.
      const doomed = yield* jobs.enqueue({ queue, payload: {} })
      const [job] = yield* jobs.claim(queue, "w1", 10)
      expect(yield* jobs.fail(job!, "refused for good", true)).toBe("dead")
      expect(yield* stateOf(doomed)).toMatchObject({ state: "dead", attempts: 1 })
    }).pipe(TestServices.provideLive)
  )

  it.effect("a crashed worker's job comes back when its lease runs out; the late worker cannot complete it", () =>
    Effect.gen(function* () {
      const jobs = yield* Jobs
      const queue = freshQueue()
      const id = yield* jobs.enqueue({ queue, payload: {} })
      const [held] = yield* jobs.claim(queue, "crashed", 10)
      expect(held?.id).toBe(id)
      // Leased: nobody else gets it.
      expect(yield* jobs.claim(queue, "other", 10)).toEqual([])
      const [retaken] = yield* jobs.claim(queue, "other", 10).pipe(
        Effect.filterOrFail((claimed) => claimed.length > 0),
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("10 seconds")))
      )
      expect(retaken).toMatchObject({ id, attempts: 2, workerId: "other" })
      expect(yield* jobs.complete(held!)).toBe(false)
      expect(yield* jobs.fail(held!, "late")).toBeUndefined()
      expect(yield* jobs.complete(retaken!, "done late")).toBe(true)
      expect(yield* stateOf(id)).toMatchObject({ state: "done", attempts: 2 })
    }).pipe(TestServices.provideLive)
  )

  it.effect("two workers on one queue run each of 200 jobs exactly once; a defect counts as a failed try", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* Jobs
      const queue = freshQueue()
      const runs = new Map<number, Array<string>>()
      const handler = (name: string): JobHandler => ({
        queue,
        run: (job: ClaimedJob) =>
          Effect.suspend(() => {
            runs.set(job.id, [...(runs.get(job.id) ?? []), name])
            if (job.payload["broken"] === true && job.attempts === 1) return Effect.die(new Error("a bug"))
            if (job.payload["flaky"] === true && job.attempts === 1)
              return Effect.fail(new JobFailed({ message: "try later" }))
            return Effect.succeed({})
          }).pipe(Effect.delay("2 millis"))
      })
      const ids = yield* sql.withTransaction(
        Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) =>
            jobs.enqueue({ queue, payload: { i, ...(i === 7 ? { broken: true } : i === 8 ? { flaky: true } : {}) } })
        )
      )
      const stop = yield* Deferred.make<void>()
      const workers = yield* Effect.all(
        ["a", "b"].map((name) => Effect.fork(runWorker(handler(name), stop, { pollMs: 50, workerId: name }))),
        { concurrency: "unbounded" }
      )
      const left = sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE queue = ${queue} AND state <> 'done'`
      // The two retried jobs wait out a 1 s backoff.
      yield* left.pipe(
        Effect.filterOrFail(([row]) => row!.n === 0),
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("60 seconds")))
      )
      yield* Deferred.succeed(stop, undefined)
      yield* Fiber.joinAll(workers)

      const once = ids.filter((id) => id !== ids[7] && id !== ids[8])
      expect(once.every((id) => runs.get(id)?.length === 1)).toBe(true)
      expect(runs.get(ids[7]!)).toHaveLength(2)
      expect(runs.get(ids[8]!)).toHaveLength(2)
      // Both workers took part.
      const byWorker = new Set([...runs.values()].flat())
      expect(byWorker).toEqual(new Set(["a", "b"]))
      const [broken] = yield* sql<{ last_error: string }>`SELECT last_error FROM jobs WHERE id = ${ids[7]!}`
      expect(broken!.last_error).toContain("a bug")
    }).pipe(TestServices.provideLive)
  )
})
