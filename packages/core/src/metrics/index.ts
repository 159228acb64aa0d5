/** The analytics' services and inputs, for callers outside the router (the benchmark's baseline). */
export { LoyaltyCardMetricsInput, MetricsOverviewInput } from "./business/contracts.js"
export { LoyaltyCardMetricsReport } from "./business/loyalty-cards.js"
export { MetricsOverviewReport } from "./business/overview.js"
