/** The analytics' services and inputs, for callers outside the router (the benchmark's baseline). */
export { ClientBehaviorReport } from "./business/client-behavior.js"
export { ClientBehaviorInput, LoyaltyCardMetricsInput, MetricsOverviewInput } from "./business/contracts.js"
export { LoyaltyCardMetricsReport } from "./business/loyalty-cards.js"
export { MetricsOverviewReport } from "./business/overview.js"
export { NfceMetricsInput, QuestMetricsInput, ReferralMetricsInput, ReferralPerformanceInput } from "./engagement/contracts.js"
export { EngagementMetrics } from "./engagement/service.js"
