import { z } from "zod"
import { companyProcedure, refuses, router, runEffect } from "../trpc.js"
import { CreateCampaignInput, ListCampaignsInput, ReferralCampaign, UpdateCampaignInput } from "./contracts.js"
import { ReferralCampaigns } from "./service.js"

const tags = ["Referrals"]

/** Referral campaigns. */
export const campaignsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/referrals/campaigns",
        tags,
        summary: "List referral campaigns",
        description:
          "Every referral campaign of the empresa, newest first (a bare array). Bonuses are in points. `status` says whether a campaign is running now (active and within its window), scheduled, ended or inactive; at most one campaign runs at any instant, and a referral that completes earns that campaign's bonuses."
      },
      tool: { name: "list_referral_campaigns", readOnly: true }
    })
    .input(ListCampaignsInput)
    .output(z.array(ReferralCampaign))
    .query(({ ctx }) => runEffect(ctx, ReferralCampaigns.list(ctx.empresaId))),

  create: companyProcedure
    .concat(refuses("CAMPAIGN_OVERLAP"))
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/referrals/campaigns",
        tags,
        summary: "Create a referral campaign",
        description:
          "Creates a campaign paying `referrer_bonus` and `referred_bonus` points when a referral completes within [starts_at, ends_at) (starts_at defaults to now; no ends_at: open-ended). Active campaigns may not overlap in time: 409 CAMPAIGN_OVERLAP names the campaign in the way. ends_at not after starts_at: 422."
      },
      tool: { name: "create_referral_campaign", adminOnly: true }
    })
    .input(CreateCampaignInput)
    .output(ReferralCampaign)
    .mutation(({ ctx, input }) => runEffect(ctx, ReferralCampaigns.create(ctx.empresaId, input))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND", "CAMPAIGN_OVERLAP"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/referrals/campaigns/{campaign_id}",
        tags,
        summary: "Update a referral campaign",
        description:
          "Changes only the fields sent (`ends_at: null` makes the campaign open-ended; `active: false` stops it). Bonus changes apply to referrals completing from then on. The result may not overlap another active campaign (409 CAMPAIGN_OVERLAP), and ends_at must stay after starts_at (422). Unknown id: 404."
      },
      tool: { name: "update_referral_campaign", adminOnly: true }
    })
    .input(UpdateCampaignInput)
    .output(ReferralCampaign)
    .mutation(({ ctx, input }) => runEffect(ctx, ReferralCampaigns.update(ctx.empresaId, input)))
})
