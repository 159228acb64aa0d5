import { Layer } from "effect"
import { Outbox } from "./service.js"

/** This area's services (the outbox, with its tokens and transport), merged into the core runtime. */
export const layer = Layer.mergeAll(Outbox.Default)
