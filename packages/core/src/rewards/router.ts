import { router } from "../trpc.js"

export const rewardsRouter = router({})
