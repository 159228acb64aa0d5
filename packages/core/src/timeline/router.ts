import { companyProcedure, refuses, runEffect } from "../trpc.js"
import { TimelineInput, TimelinePage } from "./contracts.js"
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
        "The client's activity in this empresa, newest first and paginated: purchases and credits, rewards and coupons (negative points when spent), referrals and interactions. Filter with repeated `category` and a `from`/`to` window."
    },
    tool: { name: "get_client_timeline", readOnly: true }
  })
  .input(TimelineInput)
  .output(TimelinePage)
  .query(({ ctx, input }) => runEffect(ctx, Timeline.forClient(ctx.empresaId, input)))
