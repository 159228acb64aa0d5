import { Layer } from "effect"
import { Idempotency } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Idempotency.Default)
