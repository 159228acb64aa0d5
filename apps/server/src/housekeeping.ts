import { log, sweepExpired, type CoreRuntime } from "@fidelis/core"

/**
 * Periodic clean-up of expired idempotency records and stale rate-limit windows. Every process
 * may run it: the deletes are idempotent, so no leader is needed.
 */
export const startHousekeeping = (runtime: CoreRuntime, everyMs = 60_000) => {
  const timer = setInterval(() => {
    runtime.runPromise(sweepExpired).catch((error) => log("warn", "housekeeping failed", { error: String(error) }))
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
