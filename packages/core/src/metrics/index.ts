import { Layer } from "effect"
import { ClientBehaviorReport } from "./business/client-behavior.js"
import { LoyaltyCardMetricsReport } from "./business/loyalty-cards.js"
import { MetricsOverviewReport } from "./business/overview.js"
import { EngagementMetrics } from "./engagement/service.js"

/** This area's services, merged into the core runtime. */
export const layer = Layer.mergeAll(
  MetricsOverviewReport.Default,
  LoyaltyCardMetricsReport.Default,
  ClientBehaviorReport.Default,
  EngagementMetrics.Default
)

/** The analytics' services and inputs, for callers outside the router (the benchmark's baseline). */
export { ClientBehaviorInput, LoyaltyCardMetricsInput, MetricsOverviewInput } from "./business/contracts.js"
export {
  NfceMetricsInput,
  QuestMetricsInput,
  ReferralMetricsInput,
  ReferralPerformanceInput
} from "./engagement/contracts.js"
export { ClientBehaviorReport, EngagementMetrics, LoyaltyCardMetricsReport, MetricsOverviewReport }
