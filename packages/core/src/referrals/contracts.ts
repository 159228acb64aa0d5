import { z } from "zod"
import { Flag, Instant, JsonNumber, Timestamp } from "../contracts.js"
import { CampaignId, EmpresaId } from "../ids.js"
import { MAX_POINTS } from "../amounts.js"

const Bonus = JsonNumber(z.number().int().min(0).max(MAX_POINTS))

const CampaignStatus = z
  .enum(["running", "scheduled", "ended", "inactive"])
  .describe(
    "inactive: switched off; ended: past ends_at; scheduled: active, starts_at still ahead; running: " +
      "active and now within the window (the campaign referrals earn)"
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
    id: "ReferralCampaign",
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
  .meta({
    examples: [
      {
        name: "Indique um amigo — verão 2027",
        referrer_bonus: 200,
        referred_bonus: 100,
        starts_at: "2027-01-01T00:00:00-03:00",
        ends_at: "2027-03-31T23:59:59-03:00",
        active: true
      }
    ]
  })
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
  .meta({
    examples: [
      { campaign_id: "e2f3a4b5-6c7d-4e8f-9a0b-1c2d3e4f5a6b", referrer_bonus: 250, ends_at: "2027-04-30T23:59:59-03:00" }
    ]
  })
export type UpdateCampaignInput = z.infer<typeof UpdateCampaignInput>

/** A user's referral code, case-insensitive as typed (codes are upper-case). */
const ReferralCode = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .transform((code) => code.toUpperCase())
  .describe("A user's referral code")

const EXAMPLE_BASE = "https://fidelis.example.com"
const EXAMPLE_STORE = "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b"

/** Spec 2.4 "Referral code info". */
export const ReferralCodeInfo = z
  .object({
    referral_code: z.string(),
    referral_link: z.string().describe("Where a friend registers with the code, for this store"),
    qr_code_url: z.string().describe("An SVG QR code of `referral_link`"),
    rewards: z
      .object({
        referrer_bonus: z.number().int().describe("Points for the user when the friend first earns at the store"),
        referred_bonus: z.number().int().describe("Points for the friend then")
      })
      .describe("The bonuses of the store's running campaign; 0 and 0 when it runs none")
  })
  .meta({
    examples: [
      {
        referral_code: "K7M2Q9XHRT",
        referral_link: `${EXAMPLE_BASE}/account/register?referral_code=K7M2Q9XHRT&store=${EXAMPLE_STORE}`,
        qr_code_url: `${EXAMPLE_BASE}/api/v1/public/qr/referrals/K7M2Q9XHRT.svg?store_id=${EXAMPLE_STORE}`,
        rewards: { referrer_bonus: 100, referred_bonus: 50 }
      }
    ]
  })
export type ReferralCodeInfo = z.infer<typeof ReferralCodeInfo>

export const ReferralQrInput = z.strictObject({
  code: ReferralCode,
  store_id: EmpresaId.optional().describe("The store the link registers for; absent: the code alone")
})
export type ReferralQrInput = z.infer<typeof ReferralQrInput>

/**
 * A referral link (`referral_link`): the consumer app's registration page with the code and, when
 * given, the store, under `base` (FIDELIS_PUBLIC_URL, or nothing for a link relative to the server).
 */
export const referralLinkOf = (base: string, code: string, storeId: EmpresaId | undefined) => {
  const query = new URLSearchParams({ referral_code: code, ...(storeId !== undefined && { store: storeId }) })
  return `${base}/account/register?${query}`
}
