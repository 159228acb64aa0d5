import { Layer } from "effect"
import { Quests } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Quests.Default)
