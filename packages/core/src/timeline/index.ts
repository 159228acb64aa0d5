import { Layer } from "effect"
import { Timeline } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Timeline.Default)
