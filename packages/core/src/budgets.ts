import { Effect } from "effect"
import { RateLimited } from "./errors.js"
import type { UserId } from "./ids.js"
import type { Principal } from "./principal.js"
import { RateLimiter, type Budget, type RateWindow } from "./rate-limiter.js"

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
 * A request's admission, shared by every call it carries (a tRPC batch, MCP messages): created
 * with its context, changed only here. tRPC copies the context for each call and each middleware;
 * the copies share this object.
 */
export interface AdmissionState {
  key?: Admission
  user?: UserAdmission
  /** The client address's budget as the response headers show it (public and account procedures). */
  address?: Meter
}

/**
 * One key lookup per HTTP request, however many calls it carries; each call still counts against
 * the budget (`authenticateCall`).
 */
export interface Admission extends Meter {
  readonly admitted: Promise<AdmittedKey>
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

/** A budget a call is counted against, and whose budget a refusal names: a key's (or user's), or an address's. */
export interface Counted extends Budget {
  readonly kind?: "key" | "address"
}

/**
 * Counts one call against each budget (an API key's; a user's and their address's; a client
 * address's on the public routes), all in one round trip. The calls of one request finish in any
 * order, so the headers keep the latest window whichever finishes last: they end on the final
 * count. Past any budget, the call is refused, naming the first one it exceeded.
 */
export const count = (meter: Meter, ...budgets: ReadonlyArray<Counted>) =>
  Effect.gen(function* () {
    const windows = yield* RateLimiter.hit(budgets)
    for (const window of windows) {
      if (meter.shown === undefined || isLater(window, meter.shown)) {
        meter.shown = window
        meter.headers.set("X-RateLimit-Limit", String(window.limit))
        meter.headers.set("X-RateLimit-Remaining", String(window.remaining))
        meter.headers.set("X-RateLimit-Reset", String(window.reset))
        if (window.exceeded) meter.headers.set("Retry-After", String(window.retryAfter))
        else meter.headers.delete("Retry-After")
      }
    }
    const over = windows.findIndex((window) => window.exceeded)
    if (over >= 0) {
      const window = windows[over]!
      return yield* new RateLimited({ retryAfter: window.retryAfter, budget: budgets[over]!.kind ?? "key" })
    }
  })
