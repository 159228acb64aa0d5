import { router } from "../../trpc.js"

export const engagementMetricsRouter = router({})
