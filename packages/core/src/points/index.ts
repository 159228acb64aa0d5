import { Layer } from "effect"
import { Points } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Points.Default)
