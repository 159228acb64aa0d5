import { Layer } from "effect"
import { Wallets } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Wallets.Default)
