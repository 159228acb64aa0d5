import { Layer } from "effect"
import { KeyAuthority } from "../admission.js"
import { ApiKeys } from "./service.js"

/** This area's services, merged into the core runtime; its keys admit the company and admin APIs' callers. */
export const layer = Layer.effect(KeyAuthority, ApiKeys).pipe(Layer.provideMerge(ApiKeys.Default))
