import { Layer } from "effect"
import { Clients } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Clients.Default)
