import { Effect } from "effect"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Idempotency } from "./idempotency/service.js"

/** Drops expired idempotency records and rate-limit windows; safe to run from every process. */
export const sweepExpired = Effect.all([RateLimiter.sweep, Idempotency.sweep], { discard: true }).pipe(
  Effect.withSpan("maintenance.sweep")
)
