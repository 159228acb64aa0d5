import { Layer } from "effect"

/** This part's services, merged into the core runtime. */
export const layer = Layer.empty
