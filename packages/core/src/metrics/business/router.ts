import { router } from "../../trpc.js"

export const businessMetricsRouter = router({})
