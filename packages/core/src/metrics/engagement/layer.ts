import { Layer } from "effect"
import { EngagementMetrics } from "./service.js"

/** This part's services, merged into the core runtime. */
export const layer = Layer.mergeAll(EngagementMetrics.Default)
