import { Layer } from "effect"

/** This area's services, merged into the core runtime. */
export const layer = Layer.empty
