import { Layer } from "effect"
import { ClientBehaviorReport } from "./client-behavior.js"
import { LoyaltyCardMetricsReport } from "./loyalty-cards.js"
import { MetricsOverviewReport } from "./overview.js"

/** This part's services, merged into the core runtime. */
export const layer = Layer.mergeAll(MetricsOverviewReport.Default, LoyaltyCardMetricsReport.Default, ClientBehaviorReport.Default)
