import { Layer } from "effect"
import { StaffAuthority } from "../admission.js"
import { Team } from "./service.js"

/** This area's service (empresas' teams), merged into the core runtime; it authorizes the staff routes. */
export const layer = Layer.effect(StaffAuthority, Team).pipe(Layer.provideMerge(Team.Default))
