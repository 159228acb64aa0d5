import { router } from "../trpc.js"

/** Referral campaigns. */
export const campaignsRouter = router({})
