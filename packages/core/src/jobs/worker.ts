import { SqlClient } from "@effect/sql"
import { dieOnSqlError } from "@fidelis/db"
import { Cause, Deferred, Duration, Effect, Random } from "effect"
import { hostname } from "node:os"
import { Config } from "../config.js"
import { JobFailed, type ClaimedJob, type JobHandler } from "./contracts.js"
import { Jobs } from "./service.js"
import { span } from "../tracing.js"

export interface WorkerOptions {
  /** Jobs claimed, and run side by side, at a time; default 4. */
  readonly concurrency?: number
  /** Longest idle wait between polls when nothing is due, in ms (a poke ends it early); default 1000. */
  readonly pollMs?: number
  /** Names the worker in `locked_by`; default host, process and a random suffix. */
  readonly workerId?: string
}

/**
 * A try may use its lease less a margin (a quarter, at most 5 s), so a slow try fails before
 * another worker could take the job.
 */
const budgetOf = (leaseSeconds: number) => Duration.seconds(leaseSeconds - Math.min(5, leaseSeconds / 4))

const describe = (cause: Cause.Cause<JobFailed>): { message: string; permanent: boolean } => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return { message: failure.value.message, permanent: failure.value.permanent ?? false }
  return { message: Cause.pretty(cause), permanent: false }
}

/**
 * Works one queue until `stop` completes: claims due jobs, runs them side by side, and completes
 * or fails each; sleeps 0.5-1 poll interval when nothing is due, unless this process pokes it.
 * A job in hand when `stop` completes is finished first.
 */
export const runWorker = <R>(handler: JobHandler<R>, stop: Deferred.Deferred<void>, options: WorkerOptions = {}) =>
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const sql = yield* SqlClient.SqlClient
    const { jobs: config } = yield* Config
    const concurrency = options.concurrency ?? 4
    const pollMs = options.pollMs ?? 1_000
    const workerId =
      options.workerId ?? `${hostname()}:${process.pid}:${(yield* Random.nextInt).toString(36).slice(-6)}`
    const budget = budgetOf(config.leaseSeconds)

    const attempt = (job: ClaimedJob) =>
      handler.run(job).pipe(
        Effect.timeoutFail({
          duration: budget,
          onTimeout: () => new JobFailed({ message: `Timed out after ${Duration.format(budget)}` })
        }),
        Effect.exit,
        Effect.flatMap((exit) => {
          if (exit._tag === "Success") return Effect.asVoid(jobs.complete(job, exit.value.outcome))
          const { message, permanent } = describe(exit.cause)
          return sql
            .withTransaction(
              Effect.gen(function* () {
                const state = yield* jobs.fail(job, message, permanent)
                if (state === "dead" && handler.onDead !== undefined) yield* handler.onDead(job, message)
                return state
              })
            )
            .pipe(
              dieOnSqlError,
              Effect.tap((state) =>
                state === "dead"
                  ? Effect.logError("job dead")
                  : Effect.logWarning(state === undefined ? "job lease lost" : "job failed; retrying")
              ),
              Effect.annotateLogs({ job_id: job.id, queue: job.queue, attempt: job.attempts, error: message }),
              Effect.asVoid
            )
        })
      )

    const round = Effect.gen(function* () {
      const claimed = yield* jobs.claim(handler.queue, workerId, concurrency)
      yield* Effect.forEach(claimed, attempt, { concurrency: "unbounded", discard: true })
      return claimed.length
    }).pipe(
      // A database outage must not end the worker: it logs, and polls again after a pause.
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logError("job worker round failed").pipe(
              Effect.annotateLogs({ queue: handler.queue, error: Cause.pretty(cause) }),
              Effect.as(0)
            )
      )
    )

    while (!(yield* Deferred.isDone(stop))) {
      if ((yield* round) < concurrency) {
        const ms = pollMs * (0.5 + (yield* Random.next) / 2)
        yield* Effect.raceFirst(jobs.idle(handler.queue, ms), Deferred.await(stop))
      }
    }
  }).pipe(span("jobs.worker", { attributes: { queue: handler.queue } }))
