import { Deferred, Duration, Effect, Fiber } from "effect"
import { AccountMail } from "./accounts/mail.js"
import { EmailDelivery } from "./email/service.js"
import { runWorker, type WorkerOptions } from "./jobs/worker.js"
import { Nfce } from "./nfce/service.js"
import type { CoreRuntime } from "./services.js"
import { Surveys } from "./surveys/service.js"

export interface WorkersOptions extends WorkerOptions {
  /** Absolute base URL of the links in emails (`publicUrlOf`). */
  readonly publicUrl: string
}

export interface Workers {
  /**
   * Stops claiming, lets the jobs in hand finish for up to `graceMs`, then interrupts them (their
   * leases bring them back).
   */
  stop(graceMs?: number): Promise<void>
}

/**
 * Starts this process's background workers (the email outbox, the account emails, the NFC-e scans
 * and the survey referral invitations); every server process runs them, since claims skip what
 * another process holds. Jobs live in the database, so nothing is lost on a restart.
 */
export const startWorkers = (runtime: CoreRuntime, options: WorkersOptions): Workers => {
  const stop = runtime.runSync(Deferred.make<void>())
  const fiber = runtime.runFork(
    Effect.all(
      [
        Effect.flatMap(EmailDelivery, (delivery) => runWorker(delivery.handler(options.publicUrl), stop, options)),
        Effect.flatMap(AccountMail, (mail) => runWorker(mail.handler(options.publicUrl), stop, options)),
        Effect.flatMap(Nfce, (nfce) => runWorker(nfce.handler, stop, options)),
        Effect.flatMap(Surveys, (surveys) => runWorker(surveys.inviteHandler, stop, options))
      ],
      { concurrency: "unbounded", discard: true }
    )
  )
  return {
    stop: (graceMs = 10_000) =>
      runtime.runPromise(
        Deferred.succeed(stop, undefined).pipe(
          Effect.zipRight(Fiber.join(fiber).pipe(Effect.timeout(Duration.millis(graceMs)))),
          Effect.catchAll(() => Fiber.interrupt(fiber)),
          Effect.asVoid
        )
      )
  }
}

/** Where this process's mail goes (SMTP server or folder), for the start-up log. */
export const mailTarget = Effect.map(EmailDelivery, (delivery) => delivery.target)
