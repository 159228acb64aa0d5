import { Effect } from "effect"
import { RateLimited } from "../errors.js"
import type { UserId } from "../ids.js"
import type { Principal } from "./principal.js"
import { RateLimiter, type RateWindow } from "./rate-limiter.js"

/** A budget a call counts against: its bucket and how many calls a minute it allows. */
export interface Budget {
  readonly bucket: string
  readonly limit: number
}

/** The key a request authenticated with, and the budget its calls count against. */
export interface AdmittedKey extends Budget {
  readonly principal: Principal
}

/** The latest window of a budget that one request's response headers show. */
export interface Meter {
  /** The request's response headers, where the latest window is shown. */
  readonly headers: Headers
  shown: RateWindow | undefined
}

/**
 * One key lookup per HTTP request, however many calls it carries (a tRPC batch, MCP messages);
 * each call still counts against the budget (`authenticate`).
 */
export interface Admission extends Meter {
  readonly key: Promise<AdmittedKey>
  /** Procedure calls made so far; the request's own count covers the first. */
  calls: number
  /** Whether the request's own count is still to be made (admitted without running a program). */
  owed: boolean
}

/** The user an access token named, once per HTTP request, with the budget meter its calls share. */
export interface UserAdmission extends Meter {
  readonly user: Promise<UserId>
  calls: number
  /** Whether the request's own count is still to be made (admitted without running a program). */
  owed: boolean
}

/** Whether `a` counts further into the budget than `b`: a later minute, fewer remaining, or over it. */
const isLater = (a: RateWindow, b: RateWindow) =>
  a.reset !== b.reset
    ? a.reset > b.reset
    : a.remaining !== b.remaining
      ? a.remaining < b.remaining
      : a.exceeded && !b.exceeded

/**
 * Counts one call against a budget (an API key's, or a client address's on the public routes).
 * The calls of one request finish in any order, so the headers keep the latest window whichever
 * finishes last: they end on the final count.
 */
export const count = (meter: Meter, budget: Budget, kind: "key" | "address" = "key") =>
  Effect.gen(function* () {
    const window = yield* RateLimiter.hit(budget.bucket, budget.limit)
    if (meter.shown === undefined || isLater(window, meter.shown)) {
      meter.shown = window
      meter.headers.set("X-RateLimit-Limit", String(window.limit))
      meter.headers.set("X-RateLimit-Remaining", String(window.remaining))
      meter.headers.set("X-RateLimit-Reset", String(window.reset))
      if (window.exceeded) meter.headers.set("Retry-After", String(window.retryAfter))
      else meter.headers.delete("Retry-After")
    }
    if (window.exceeded) return yield* new RateLimited({ retryAfter: window.retryAfter, budget: kind })
  })
