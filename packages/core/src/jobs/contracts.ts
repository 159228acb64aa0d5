import { Data, type Effect } from "effect"

/** What the jobs table holds for one unit of background work (migration 0013). */

export type JobState = "pending" | "running" | "done" | "dead"

/** A job to add to a queue, in the caller's transaction when there is one. */
export interface NewJob {
  /** The queue a worker takes it from, e.g. `email`. */
  readonly queue: string
  /** What the handler needs; kept small (ids of rows, not their contents). */
  readonly payload: Readonly<Record<string, unknown>>
  /** Seconds from now (the database's clock) before it is due; default 0. */
  readonly delaySeconds?: number | undefined
  /** Tries before it ends `dead`; default `FIDELIS_JOB_MAX_ATTEMPTS`. */
  readonly maxAttempts?: number | undefined
}

/** A job a worker claimed: its lease is `workerId`'s until it completes, fails or times out. */
export interface ClaimedJob {
  readonly id: number
  readonly queue: string
  readonly payload: Readonly<Record<string, unknown>>
  /** This try's number, from 1. */
  readonly attempts: number
  readonly max_attempts: number
  readonly workerId: string
}

/** How a handler ends a job that needs no further try; `outcome` says why when it is not plain success. */
export interface JobDone {
  readonly outcome?: string | undefined
}

/**
 * A try that did not work. `permanent` ends the job `dead` at once (a message the server refused
 * for good); otherwise it is tried again after a backoff, until its last try.
 */
export class JobFailed extends Data.TaggedError("JobFailed")<{
  readonly message: string
  readonly permanent?: boolean
}> {}

/** What a queue's jobs do. */
export interface JobHandler<R = never> {
  readonly queue: string
  /**
   * One try, outside any transaction (an SMTP send must not hold the embedded database's only
   * connection). Fails with JobFailed to try again later; a defect counts as a failed try too.
   */
  readonly run: (job: ClaimedJob) => Effect.Effect<JobDone, JobFailed, R>
  /** Runs in the transaction that marks the job dead, so the rows it names say so too. */
  readonly onDead?: ((job: ClaimedJob, error: string) => Effect.Effect<void, never, R>) | undefined
}
