import { Layer } from "effect"
import { Rewards, RewardsForUser } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(Rewards.Default, RewardsForUser.Default)
