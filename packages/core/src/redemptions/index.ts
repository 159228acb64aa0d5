import { Layer } from "effect"
import { Redemptions } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Redemptions.Default)
