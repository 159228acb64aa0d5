import { Layer } from "effect"
import { ReferralCampaigns } from "./service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(ReferralCampaigns.Default)
