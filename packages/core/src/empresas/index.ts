import { Layer } from "effect"
import { TenantDirectory } from "../admission.js"
import { Empresas } from "./service.js"

/** This area's services, merged into the core runtime; it names the empresa an admin acts on. */
export const layer = Layer.effect(TenantDirectory, Empresas).pipe(Layer.provideMerge(Empresas.Default))
