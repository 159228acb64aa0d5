import { Effect } from "effect"
import { RateLimiter } from "./rate-limiter.js"
import { Coupons } from "./coupons/service.js"
import { Idempotency } from "./idempotency.js"
import { Redemptions } from "./redemptions/service.js"
import { span } from "./tracing.js"

/**
 * Expires overdue coupons and redemptions and drops expired idempotency records and rate-limit windows; safe to
 * run from every process, as each step is an idempotent set-based update.
 */
export const sweepExpired = Effect.all([Coupons.sweep, Redemptions.sweep, RateLimiter.sweep, Idempotency.sweep], {
  discard: true
}).pipe(span("maintenance.sweep"))
