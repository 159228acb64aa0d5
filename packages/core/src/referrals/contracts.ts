import { z } from "zod"
import { Flag, Instant, JsonNumber, Timestamp } from "../contracts.js"
import { CampaignId } from "../ids.js"

const Bonus = JsonNumber(z.number().int().min(0).max(1_000_000_000))

const CampaignStatus = z
  .enum(["running", "scheduled", "ended", "inactive"])
  .describe(
    "inactive: switched off; ended: past ends_at; scheduled: active, starts_at still ahead; running: active and now within the window (the campaign referrals earn)"
  )

export const ReferralCampaign = z
  .object({
    id: CampaignId,
    name: z.string(),
    referrer_bonus: z.number().int().describe("Points the referrer earns when a referral completes"),
    referred_bonus: z.number().int().describe("Points the referred client earns when the referral completes"),
    starts_at: Timestamp.describe("Start of the window, inclusive"),
    ends_at: Timestamp.nullable().describe("End of the window, exclusive; null: open-ended"),
    active: z.boolean().describe("Switched on; only active campaigns can run"),
    status: CampaignStatus,
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    examples: [
      {
        id: "3c9a7e21-5d4b-4f0e-8a6c-1b2d3e4f5a6b",
        name: "Indique um amigo: novembro",
        referrer_bonus: 100,
        referred_bonus: 50,
        starts_at: "2026-11-01T03:00:00.000Z",
        ends_at: "2026-12-01T03:00:00.000Z",
        active: true,
        status: "running",
        created_at: "2026-10-28T14:12:09.000Z",
        updated_at: "2026-10-28T14:12:09.000Z"
      }
    ]
  })
export type ReferralCampaign = z.infer<typeof ReferralCampaign>

export const ListCampaignsInput = z.strictObject({})

const windowIsOrdered = (i: { starts_at?: string | undefined; ends_at?: string | null | undefined }) =>
  i.starts_at === undefined || i.ends_at == null || Date.parse(i.ends_at) > Date.parse(i.starts_at)
const windowMessage = { message: "ends_at must be after starts_at", path: ["ends_at"] }

export const CreateCampaignInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).describe("Shown to staff and in referral screens"),
    referrer_bonus: Bonus.describe("Points for the referrer when a referral completes, an integer >= 0"),
    referred_bonus: Bonus.describe("Points for the referred client when the referral completes, an integer >= 0"),
    starts_at: Instant.optional().describe("Start of the window (ISO 8601, inclusive); default: now"),
    ends_at: Instant.nullable()
      .optional()
      .describe("End of the window (ISO 8601, exclusive), after starts_at; absent or null: open-ended"),
    active: Flag.default(true).describe("Whether the campaign can run; inactive campaigns never overlap anything")
  })
  .refine(windowIsOrdered, windowMessage)
export type CreateCampaignInput = z.infer<typeof CreateCampaignInput>

/** Absent fields stay as they are; `ends_at: null` makes the campaign open-ended. */
export const UpdateCampaignInput = z
  .strictObject({
    campaign_id: CampaignId.describe("Campaign id"),
    name: z.string().trim().min(1).max(200).optional().describe("Shown to staff and in referral screens"),
    referrer_bonus: Bonus.optional().describe("Points for the referrer, an integer >= 0"),
    referred_bonus: Bonus.optional().describe("Points for the referred client, an integer >= 0"),
    starts_at: Instant.optional().describe("Start of the window (ISO 8601, inclusive)"),
    ends_at: Instant.nullable().optional().describe("End of the window (ISO 8601, exclusive); null: open-ended"),
    active: Flag.optional().describe("Switch the campaign on or off")
  })
  .refine(windowIsOrdered, windowMessage)
export type UpdateCampaignInput = z.infer<typeof UpdateCampaignInput>
