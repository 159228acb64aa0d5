import { Layer } from "effect"
import { Stores } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Stores.Default)
