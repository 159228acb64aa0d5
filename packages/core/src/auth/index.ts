import { Layer } from "effect"
import { RateLimiter } from "./rate-limiter.js"
import { ApiKeys } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(ApiKeys.Default, RateLimiter.Default)
