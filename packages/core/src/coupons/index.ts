import { Layer } from "effect"
import { Coupons } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Coupons.Default)
