import { Layer } from "effect"
import { Surveys } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Surveys.Default)
