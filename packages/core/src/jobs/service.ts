import { SqlClient } from "@effect/sql"
import { jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Config } from "../config.js"
import type { ClaimedJob, JobState, NewJob } from "./contracts.js"
import { traced } from "../tracing.js"

/** Longest error text kept on a job row. */
const ERROR_LIMIT = 2_000

/**
 * The jobs table, worked with FOR UPDATE SKIP LOCKED (docs/research/background-jobs.md): every
 * step is one statement, so it runs unchanged on the embedded database's single connection and
 * is safe with any number of workers and processes on a real server. Delivery is at least once:
 * a worker that dies after its handler acted but before `complete` leaves the job to come back
 * when its lease runs out, so handlers use the job (or the row it names) as their idempotency key.
 */
export class Jobs extends Effect.Service<Jobs>()("core/Jobs", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { jobs: config } = yield* Config
    /** Workers of this process waiting for work, by queue; a poke wakes them at once. */
    const sleepers = new Map<string, Set<() => void>>()

    const wake = (queue: string) => {
      for (const resume of sleepers.get(queue) ?? []) resume()
    }

    /**
     * Adds a job. Inside a transaction it is part of it (an outbox row written with the action that
     * causes it, or not at all). The in-process poke lets an idle worker claim it at once; a poke
     * that comes before the caller's commit finds nothing, and the worker's next poll (within a
     * second) does.
     */
    const enqueue = traced("Jobs.enqueue")(function* (job: NewJob) {
      const [row] = yield* sql<{ id: number }>`
        INSERT INTO jobs (queue, payload, max_attempts, run_at)
        VALUES (${job.queue}, ${jsonb(job.payload)}::jsonb, ${job.maxAttempts ?? config.maxAttempts},
                now() + make_interval(secs => ${job.delaySeconds ?? 0}))
        RETURNING id`
      if ((job.delaySeconds ?? 0) <= 0) yield* Effect.sync(() => setImmediate(() => wake(job.queue)))
      return row!.id
    })

    /**
     * Takes up to `limit` due jobs of a queue, and jobs whose worker's lease ran out, in one
     * statement: each is `running` under `workerId` for `leaseSeconds`, its try counted.
     */
    const claim = traced("Jobs.claim")(function* (queue: string, workerId: string, limit: number) {
      const rows = yield* sql<Omit<ClaimedJob, "workerId">>`
        WITH next AS (
          SELECT id FROM jobs
          WHERE queue = ${queue}
            AND run_at <= now()
            AND ((state = 'pending') OR (state = 'running' AND locked_until < now()))
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, locked_by = ${workerId},
          locked_until = now() + make_interval(secs => ${config.leaseSeconds})
        FROM next WHERE j.id = next.id
        RETURNING j.id, j.queue, j.payload, j.attempts, j.max_attempts`
      return rows.map((row): ClaimedJob => ({ ...row, workerId }))
    })

    /** Ends a job the worker still holds; false when its lease was lost (another worker took it). */
    const complete = traced("Jobs.complete")(function* (job: ClaimedJob, outcome?: string) {
      const rows = yield* sql`
        UPDATE jobs SET state = 'done', finished_at = now(), outcome = ${outcome ?? null},
          locked_by = NULL, locked_until = NULL
        WHERE id = ${job.id} AND state = 'running' AND locked_by = ${job.workerId}
        RETURNING id`
      return rows.length > 0
    })

    /**
     * Records a failed try: the job is due again after base × 2^(tries - 1) seconds (capped, ±25%
     * jitter), or `dead` after its last try or a permanent failure. Returns its new state, or
     * undefined when the worker's lease was lost.
     */
    const fail = traced("Jobs.fail")(function* (job: ClaimedJob, error: string, permanent = false) {
      const last = sql`(${permanent}::boolean OR attempts >= max_attempts)`
      const backoff = sql`least(${config.backoffBaseSeconds} * 2 ^ (attempts - 1), ${config.backoffMaxSeconds})`
      const [row] = yield* sql<{ state: JobState }>`
        UPDATE jobs SET
          state = CASE WHEN ${last} THEN 'dead' ELSE 'pending' END,
          finished_at = CASE WHEN ${last} THEN now() END,
          run_at = CASE WHEN ${last} THEN run_at
                        ELSE now() + make_interval(secs => ${backoff} * (0.75 + random() / 2)) END,
          last_error = ${error.slice(0, ERROR_LIMIT)}, locked_by = NULL, locked_until = NULL
        WHERE id = ${job.id} AND state = 'running' AND locked_by = ${job.workerId}
        RETURNING state`
      return row?.state
    })

    /**
     * Waits until `ms` pass or this process enqueues a job on the queue, whichever comes first.
     */
    const idle = (queue: string, ms: number) =>
      Effect.async<void>((resume) => {
        const waiting = sleepers.get(queue) ?? new Set()
        sleepers.set(queue, waiting)
        const done = () => {
          clearTimeout(timer)
          waiting.delete(done)
          resume(Effect.void)
        }
        const timer = setTimeout(done, ms)
        waiting.add(done)
        return Effect.sync(() => {
          clearTimeout(timer)
          waiting.delete(done)
        })
      })

    return {
      ...sqlErrorsAsDefects({ enqueue, claim, complete, fail }),
      idle,
      /** Wakes this process's idle workers of a queue (after a commit that made a job due). */
      poke: (queue: string) => Effect.sync(() => wake(queue))
    }
  })
}) {}
