import { z } from "zod"
import { PageQuery, Timestamp, Uuid, paginated } from "../contracts.js"
import { ClientId, CouponUid, ProductId } from "../ids.js"
import { PointsAmount } from "../amounts.js"

const CouponStatus = z
  .enum(["active", "used", "expired", "cancelled"])
  .describe("active (can be used), used, expired (past expires_at; points stay spent) or cancelled (points refunded)")

export const Coupon = z
  .object({
    id: Uuid,
    uid: CouponUid.describe("The code the client shows: 8 upper-case characters without 0/O/1/I/L"),
    status: CouponStatus,
    kind: z
      .enum(["points", "product"])
      .describe("points: worth `valor` in BRL; product: worth one unit of the product"),
    valor: z
      .number()
      .nullable()
      .describe("Value in BRL: points x the empresa's point_value, or the product's price (null when it has none)"),
    points_spent: z.number().int().describe("Points debited to generate it (refunded if cancelled)"),
    client_id: ClientId,
    product_id: ProductId.nullable(),
    product_name: z.string().nullable().describe("The product's name when the coupon was generated"),
    expires_at: Timestamp,
    used_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp
  })
  .meta({
    id: "Coupon",
    examples: [
      {
        id: "5d2a7c1e-3b8f-4e6a-9c0d-1f2e3a4b5c6d",
        uid: "K7P2XM9Q",
        status: "active",
        kind: "product",
        valor: 8.5,
        points_spent: 120,
        client_id: "8c3e1f2a-6b7d-4c9e-a1f0-2d3b4c5e6f70",
        product_id: "3b0f6a52-4c1e-4a7e-9d55-2f8c1b6e9a01",
        product_name: "Café expresso",
        expires_at: "2026-12-22T10:07:04.490Z",
        used_at: null,
        cancelled_at: null,
        created_at: "2026-11-22T10:07:04.490Z"
      }
    ]
  })
export type Coupon = z.infer<typeof Coupon>

export const CouponPage = paginated(Coupon)

export const GenerateCouponInput = z
  .strictObject({
    client_id: ClientId.describe("Client whose points pay for the coupon"),
    points: PointsAmount.optional().describe(
      "Points to convert into a coupon worth points x point_value BRL; send this or product_id"
    ),
    product_id: ProductId.optional().describe(
      "Product the coupon is good for, paid with its points_cost; send this or points"
    )
  })
  .superRefine((input, ctx) => {
    if (input.points === undefined && input.product_id === undefined) {
      ctx.addIssue({
        code: "invalid_type",
        expected: "number",
        path: ["points"],
        message: "Send points (a coupon worth money) or product_id (a coupon for a product)"
      })
    }
    if (input.points !== undefined && input.product_id !== undefined) {
      ctx.addIssue({ code: "custom", path: ["product_id"], message: "Send either points or product_id, not both" })
    }
  })
  .meta({
    examples: [
      { client_id: "18e80772-42c3-4276-ae21-37f63b69427a", product_id: "3c9b7f42-6d1e-4a8b-9f2c-5e7d8a1b0c64" }
    ]
  })
export type GenerateCouponInput = z.infer<typeof GenerateCouponInput>

export const CouponRef = z.strictObject({
  uid: z.string().trim().min(1).max(32).toUpperCase().brand<"CouponUid">().describe("Coupon code, case-insensitive")
})

export const ListCouponsInput = z.strictObject({
  ...PageQuery,
  client_id: ClientId.optional().describe("Only this client's coupons"),
  status: CouponStatus.optional().describe("Only coupons in this state")
})
export type ListCouponsInput = z.infer<typeof ListCouponsInput>
