import { Layer } from "effect"
import { LoyaltyCards } from "./service.js"
import { LoyaltyPrograms } from "./programs.js"
import { UserCards } from "./user-cards.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(LoyaltyPrograms.Default, LoyaltyCards.Default, UserCards.Default)
