import { Layer } from "effect"
import { Carts } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Carts.Default)
