import { router, runEffect, userProcedure } from "../trpc.js"
import { UserTimelineInput, UserTimelinePage } from "./contracts.js"
import { Timeline } from "./service.js"

/** `GET /timeline` of the end-user API. */
export const userTimelineRouter = router({
  list: userProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/timeline",
        tags: ["Timeline"],
        summary: "The user's timeline",
        description:
          "The user's activity at every store, newest first: purchases and credits, rewards and coupons (negative " +
          "points when spent), referrals and interactions. Shows a store's events once the user's email is verified."
      }
    })
    .input(UserTimelineInput)
    .output(UserTimelinePage)
    .query(({ ctx, input }) => runEffect(ctx, Timeline.forUser(ctx.userId, input)))
})
