import { Layer } from "effect"
import { Team } from "./service.js"

/** This area's service (empresas' teams and the staff routes' role check), merged into the core runtime. */
export const layer = Layer.mergeAll(Team.Default)
