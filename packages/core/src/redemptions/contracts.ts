import { z } from "zod"
import { JsonNumber, Timestamp, Uuid } from "../contracts.js"
import { EmpresaId, ProductId, RewardId } from "../ids.js"

export const RedemptionId = Uuid.brand<"RedemptionId">()
export type RedemptionId = z.infer<typeof RedemptionId>

/** The 8-character code a user shows at the counter (unambiguous alphabet, matched case-insensitively). */
export const RedemptionCode = z
  .string()
  .trim()
  .regex(/^[2-9A-HJ-NP-Za-hj-np-z]{8}$/, "An 8-character redemption code")
  .transform((code) => code.toUpperCase())
  .describe("The 8-character code the user shows, or its QR code")

export const RedemptionStatus = z
  .enum(["pending", "validated", "expired", "cancelled"])
  .describe("pending until validated at the counter, cancelled (points back) or past expires_at (expired)")
export type RedemptionStatus = z.infer<typeof RedemptionStatus>

const EXAMPLE = {
  id: "5f0c2a9e-3b1d-4c7e-8a6f-2d9b1e0c4a73",
  reward_uid: "9d3a7c21-5b6e-4f08-8a1d-7e2c4b9f0a36",
  product_name: "Café expresso",
  points_spent: 100,
  quantity: 1,
  status: "pending",
  code: "K7M2Q9XH",
  qr_code_url: "https://fidelis.example.com/api/v1/public/qr/K7M2Q9XH.svg",
  expires_at: "2026-11-29T10:07:04.490Z",
  created_at: "2026-11-22T10:07:04.490Z"
} as const

/** Spec 2.4's redemption, with what else the record is: an order's lines, a card's claim. */
export const Redemption = z
  .object({
    id: RedemptionId,
    empresa_id: EmpresaId,
    kind: z.enum(["reward", "order", "card"]).describe("A redeemed reward, a checked-out cart, a stamp card's reward"),
    reward_uid: RewardId.nullable().describe("The reward redeemed; null for an order or a card's reward"),
    product_name: z.string().describe("What the counter hands over"),
    points_spent: z.number().int(),
    cashback: z.number().describe("BRL the reward credited to the wallet's cashback balance"),
    quantity: z.number().int(),
    items: z
      .array(z.object({ product_uid: ProductId, product_name: z.string(), quantity: z.number().int() }))
      .describe("An order's lines; empty otherwise"),
    notes: z.string().nullable(),
    status: RedemptionStatus,
    code: z.string(),
    qr_code_url: z.string().describe("An SVG QR code of `code`, served by the server"),
    expires_at: Timestamp,
    validated_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp
  })
  .meta({
    examples: [
      {
        ...EXAMPLE,
        empresa_id: "3b0f6a52-4c1e-4a7e-9d55-2f8c1b6e9a01",
        kind: "reward",
        cashback: 0,
        items: [],
        notes: null,
        validated_at: null,
        cancelled_at: null
      }
    ]
  })
export type Redemption = z.infer<typeof Redemption>

export const RedemptionList = z.object({ redemptions: z.array(Redemption) })

export const ListRedemptionsInput = z.strictObject({
  status: RedemptionStatus.optional(),
  empresa_id: EmpresaId.describe("Only this store's").optional()
})
export type ListRedemptionsInput = z.infer<typeof ListRedemptionsInput>

export const RedeemInput = z
  .strictObject({
    reward_uid: RewardId.describe("The reward's uid"),
    quantity: JsonNumber(z.number().int().min(1).max(100)).default(1).describe("Units to redeem, 1 to 100"),
    notes: z.string().trim().max(500).optional().describe("A note for the store")
  })
  .meta({
    examples: [{ reward_uid: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", quantity: 1, notes: "Sem açúcar, por favor" }]
  })
export type RedeemInput = z.infer<typeof RedeemInput>

export const UpdatedBalance = z.object({
  points_before: z.number().int(),
  points_after: z.number().int(),
  points_spent: z.number().int()
})

export const RedeemResult = z.object({
  success: z.literal(true),
  redemption: Redemption,
  updated_balance: UpdatedBalance
})
export type RedeemResult = z.infer<typeof RedeemResult>

export const RedemptionRef = z.strictObject({ redemption_id: RedemptionId.describe("Redemption id") })
export const ValidateInput = z.strictObject({ code: RedemptionCode }).meta({ examples: [{ code: "K7M2Q9XH" }] })
export const QrInput = z.strictObject({ code: RedemptionCode })
