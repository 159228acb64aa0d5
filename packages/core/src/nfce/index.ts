import { Layer } from "effect"
import { Nfce } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Nfce.Default)
