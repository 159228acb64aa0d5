import { z } from "zod"
import { Flag, Instant, JsonNumber, QueryFlag, Timestamp, Uuid } from "../contracts.js"
import { EmpresaId, ProductId, RewardId } from "../ids.js"
import { MAX_POINTS, PointsAmount } from "../amounts.js"
import { Stock } from "../products/contracts.js"
import { Money } from "../amounts.js"

const RewardProduct = z
  .object({
    id: ProductId,
    name: z.string(),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    category: z.string().nullable()
  })
  .describe("The product the reward delivers")

export const Reward = z
  .object({
    id: RewardId,
    product: RewardProduct,
    pontos_necessarios: z.number().int().describe("Points a client spends per redemption"),
    cashback_value: z
      .number()
      .nullable()
      .describe("Cashback in BRL credited to the client per redemption; null for none"),
    stock: z.number().int().nullable().describe("Redemptions left; null means unlimited"),
    expires_at: Timestamp.nullable().describe("After this instant it cannot be redeemed; null never expires"),
    per_user_limit: z.number().int().nullable().describe("Redemptions allowed per client; null means no limit"),
    active: z.boolean(),
    available: z
      .boolean()
      .describe(
        "Redeemable now: active, its product active, not expired and stock left (a client still needs the points)"
      ),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "Reward",
    examples: [
      {
        id: "9d3a7c21-5b6e-4f08-8a1d-7e2c4b9f0a36",
        product: {
          id: "3b0f6a52-4c1e-4a7e-9d55-2f8c1b6e9a01",
          name: "Café expresso",
          description: "Expresso duplo, grãos da casa",
          image_url: "https://cdn.example.com/produtos/expresso.jpg",
          category: "bebidas"
        },
        pontos_necessarios: 100,
        cashback_value: null,
        stock: 25,
        expires_at: "2026-12-31T23:59:59.000Z",
        per_user_limit: 2,
        active: true,
        available: true,
        created_at: "2026-11-22T10:07:04.490Z",
        updated_at: "2026-11-22T10:07:04.490Z"
      }
    ]
  })
export type Reward = z.infer<typeof Reward>

export const RewardList = z.array(Reward)

const Future = Instant.refine((v) => Date.parse(v) > Date.now(), "Must be in the future")

const fields = {
  pontos_necessarios: PointsAmount.describe(`Points a client spends per redemption, 1 to ${MAX_POINTS}`),
  cashback_value: Money.describe("Cashback in BRL credited to the client per redemption, cents precision"),
  stock: Stock.describe("Redemptions left; null means unlimited"),
  expires_at: Future.describe("ISO 8601 instant in the future after which the reward cannot be redeemed"),
  per_user_limit: JsonNumber(z.number().int().min(1).max(1_000_000)).describe("Redemptions allowed per client"),
  active: Flag.describe("Inactive rewards are hidden from clients and cannot be redeemed")
}

export const CreateRewardInput = z
  .strictObject({
    product_id: ProductId.describe("The empresa's product this reward delivers"),
    pontos_necessarios: fields.pontos_necessarios
      .optional()
      .describe("Points per redemption; default: the product's points_cost"),
    cashback_value: fields.cashback_value.nullable().optional(),
    stock: fields.stock.nullable().optional().describe("Redemptions available; omit or null for unlimited"),
    expires_at: fields.expires_at.nullable().optional(),
    per_user_limit: fields.per_user_limit
      .nullable()
      .optional()
      .describe("Redemptions allowed per client; omit or null for no limit"),
    active: fields.active.default(true)
  })
  .meta({
    examples: [
      {
        product_id: "3c9b7f42-6d1e-4a8b-9f2c-5e7d8a1b0c64",
        pontos_necessarios: 500,
        stock: 20,
        expires_at: "2027-12-31T23:59:59-03:00",
        per_user_limit: 1,
        active: true
      }
    ]
  })
export type CreateRewardInput = z.infer<typeof CreateRewardInput>

/** Omitted fields keep their value; null clears a nullable one. The product cannot change. */
export const UpdateRewardInput = z
  .strictObject({
    reward_id: RewardId.describe("Reward id"),
    pontos_necessarios: fields.pontos_necessarios.optional(),
    cashback_value: fields.cashback_value.nullable().optional(),
    stock: fields.stock.nullable().optional(),
    expires_at: fields.expires_at.nullable().optional(),
    per_user_limit: fields.per_user_limit.nullable().optional(),
    active: fields.active.optional()
  })
  .meta({ examples: [{ reward_id: "c8e1a2b3-4d5f-4a6b-9c7d-8e9f0a1b2c3d", pontos_necessarios: 450, stock: 15 }] })

export type UpdateRewardInput = z.infer<typeof UpdateRewardInput>

export const RewardRef = z.strictObject({ reward_id: RewardId.describe("Reward id") })

export const ListRewardsInput = z.strictObject({
  // Described before optional(): the OpenAPI generator unwraps optional query parameters.
  product_id: ProductId.describe("Only rewards of this product").optional(),
  include_unavailable: QueryFlag.default(false).describe(
    "Also list inactive, expired and sold-out rewards, and those of inactive products: true or false (default false)"
  )
})
export type ListRewardsInput = z.infer<typeof ListRewardsInput>

export const UserRewardsInput = z.strictObject({ empresa_id: EmpresaId.describe("The store (empresa) id") })

/** Spec 2.4's reward as a user sees it. */
export const UserReward = z.object({
  uid: RewardId,
  product: z.object({
    uid: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    category: z.string().nullable()
  }),
  empresa: z.object({ id: EmpresaId, name: z.string(), logo_url: z.string().nullable() }),
  pontos_necessarios: z.number().int(),
  cashback_value: z.number().nullable(),
  stock_available: z.number().int().nullable().describe("Units left; null means unlimited"),
  expires_at: Timestamp.nullable(),
  can_redeem: z.boolean().describe("The user's points cover one unit and the per-user limit is not reached"),
  user_points: z.number().int()
})
export type UserReward = z.infer<typeof UserReward>

export const UserRewards = z.object({
  rewards: z.array(UserReward),
  user_summary: z.object({ total_points: z.number().int(), empresa_id: EmpresaId })
})
export type UserRewards = z.infer<typeof UserRewards>
