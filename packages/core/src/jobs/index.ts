import { Layer } from "effect"
import { Jobs } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Jobs.Default)
