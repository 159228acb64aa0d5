import { Layer } from "effect"
import { Products } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Products.Default)
