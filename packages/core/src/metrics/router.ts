import { router } from "../trpc.js"
import { businessMetricsRouter } from "./business/router.js"
import { engagementMetricsRouter } from "./engagement/router.js"

/** Every analytic under `metrics.*` (`fidelis metrics overview`), whatever its REST path. */
export const metricsRouter = router({
  ...businessMetricsRouter._def.record,
  ...engagementMetricsRouter._def.record
})
