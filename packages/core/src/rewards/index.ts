import { Layer } from "effect"
import { Rewards } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Rewards.Default)
