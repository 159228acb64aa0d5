import { z } from "zod"
import { FileBody } from "../contracts.js"
import { StoreRef } from "../stores/contracts.js"
import { companyProcedure, publicProcedure, refuses, router, runEffect, userProcedure } from "../trpc.js"
import { ReferralCodes } from "./codes.js"
import {
  CreateCampaignInput,
  ListCampaignsInput,
  ReferralCampaign,
  ReferralCodeInfo,
  ReferralQrInput,
  UpdateCampaignInput
} from "./contracts.js"
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
          "Every referral campaign of the empresa, newest first (a bare array). Bonuses are in points. " +
          "`status` says whether a campaign is running now (active and within its window), scheduled, " +
          "ended or inactive; at most one campaign runs at any instant, " +
          "and a referral that completes earns that campaign's bonuses."
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
      location: "/referrals/campaigns/{id}",
      openapi: {
        method: "POST",
        path: "/referrals/campaigns",
        tags,
        summary: "Create a referral campaign",
        description:
          "Creates a campaign paying `referrer_bonus` and `referred_bonus` points when a referral completes within " +
          "[starts_at, ends_at) (starts_at defaults to now; no ends_at: open-ended). " +
          "Active campaigns may not overlap in time: CAMPAIGN_OVERLAP names the campaign in the way. " +
          "ends_at not after starts_at: VALIDATION_FAILED."
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
          "Changes only the fields sent (`ends_at: null` makes the campaign open-ended; `active: false` stops it). " +
          "Bonus changes apply to referrals completing from then on. The result may not overlap another active " +
          "campaign (CAMPAIGN_OVERLAP), and ends_at must stay after starts_at (VALIDATION_FAILED). " +
          "Unknown id: NOT_FOUND."
      },
      tool: { name: "update_referral_campaign", retrySafe: true, adminOnly: true }
    })
    .input(UpdateCampaignInput)
    .output(ReferralCampaign)
    .mutation(({ ctx, input }) => runEffect(ctx, ReferralCampaigns.update(ctx.empresaId, input)))
})

/** The end-user API's referral code of a store (spec 4.4). */
export const referralCodesRouter = router({
  get: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/stores/{store_id}/referral-code",
        tags: ["Referrals"],
        summary: "The user's referral code for a store",
        description:
          "A link and QR code that register a friend with the user's code. When the friend first earns points " +
          "at a store running a referral campaign, both get that campaign's bonuses there, once."
      }
    })
    .input(StoreRef)
    .output(ReferralCodeInfo)
    .query(({ ctx, input }) => runEffect(ctx, ReferralCodes.info(ctx.userId, input.store_id)))
})

/** `GET /api/v1/public/qr/referrals/{code}.svg`: a referral link's QR code, as `qr_code_url` gives it (no key). */
export const qrRouter = router({
  svg: publicProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      response: { kind: "file", contentType: "image/svg+xml" },
      openapi: {
        method: "GET",
        path: "/qr/referrals/{code}.svg",
        tags: ["Referrals"],
        summary: "QR code of a referral link",
        description: "An SVG QR code of the referral link of a user's code, for the store named by `store_id`."
      }
    })
    .input(ReferralQrInput)
    .output(FileBody)
    .query(({ ctx, input }) => runEffect(ctx, ReferralCodes.qr(input)))
})
