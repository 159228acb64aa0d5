import { companyProcedure, refuses, router, runEffect, userProcedure } from "../trpc.js"
import { TimelineInput, TimelinePage, UserTimelineInput, UserTimelinePage } from "./contracts.js"
import { Timeline } from "./service.js"

/** `get_client_timeline`; mounted in the clients router, as its path is under /clients. */
export const clientTimeline = companyProcedure
  .concat(refuses("NOT_FOUND"))
  .meta({
    openapi: {
      method: "GET",
      path: "/clients/{client_id}/timeline",
      tags: ["Clients"],
      summary: "Get a client's timeline",
      description:
        "The client's activity in this empresa, newest first and paginated: purchases and credits, " +
        "rewards and coupons (negative points when spent), referrals and interactions. " +
        "Filter with repeated `category` and a `from`/`to` window."
    },
    tool: { name: "get_client_timeline", readOnly: true }
  })
  .input(TimelineInput)
  .output(TimelinePage)
  .query(({ ctx, input }) => runEffect(ctx, Timeline.forClient(ctx.empresaId, input)))

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
