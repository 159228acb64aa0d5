import { Layer } from "effect"
import { Empresas } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Empresas.Default)
