import { Layer } from "effect"
import { ReferralCodes } from "./codes.js"
import { ReferralCompletion } from "./service.js"
import { ReferralCampaigns } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(ReferralCampaigns.Default, ReferralCodes.Default, ReferralCompletion.Default)
