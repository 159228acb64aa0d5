import { z } from "zod"
import { JsonNumber, Timestamp, Uuid } from "../contracts.js"
import { CouponUid, EmpresaId, ProductId } from "../ids.js"
import { MAX_POINTS } from "../amounts.js"

export const CartId = Uuid.brand<"CartId">()
export type CartId = z.infer<typeof CartId>

/** Units one line of a cart holds, over every add. */
export const MAX_LINE_QUANTITY = 1000
/**
 * Products one cart holds. With `MAX_LINE_QUANTITY` and a price of at most `MAX_POINTS`, a cart's
 * total at any later price (10^14 at most) stays a safe integer; what one order may spend is
 * `MAX_POINTS`, checked when it is added and again at checkout.
 */
export const MAX_CART_LINES = 100

export const AddToCartInput = z
  .strictObject({
    store_id: EmpresaId.describe("The store (empresa) id"),
    product_uid: ProductId.describe("One of the store's products"),
    quantity: JsonNumber(z.number().int().min(1).max(100))
      .default(1)
      .describe(
        `Units to add, 1 to 100. The line may hold ${MAX_LINE_QUANTITY} units, the cart ${MAX_CART_LINES} ` +
          `products, and the whole cart may cost ${MAX_POINTS} points: past any of these, a 422`
      )
  })
  .meta({
    examples: [
      {
        store_id: "2b3c4d5e-6f70-4819-a2b3-c4d5e6f7a8b9",
        product_uid: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
        quantity: 2
      }
    ]
  })
export type AddToCartInput = z.infer<typeof AddToCartInput>

export const AddToCartResult = z.object({
  success: z.literal(true),
  cart_id: CartId,
  item: z.object({
    product_uid: ProductId,
    product_name: z.string(),
    quantity: z.number().int().describe("The line's quantity after this add"),
    points_cost: z.number().int().describe("Points per unit")
  }),
  cart_total: z.number().int().describe("Points the whole cart costs now")
})

export const CartRef = z.strictObject({ store_id: EmpresaId.describe("The store (empresa) id") })

/** Spec 2.4's cart; an empty one (no open cart) has `cart_id` null. */
export const Cart = z.object({
  cart_id: CartId.nullable(),
  store_id: EmpresaId,
  items: z.array(
    z.object({
      product_uid: ProductId,
      product_name: z.string(),
      quantity: z.number().int(),
      points_cost: z.number().int().describe("Points per unit, at today's price"),
      image_url: z.string().nullable(),
      available: z.boolean().describe("Active with enough stock for the line")
    })
  ),
  total_points: z.number().int(),
  user_balance: z.number().int().describe("The user's points at the store"),
  can_checkout: z.boolean().describe("Items, every one available, and enough points")
})
export type Cart = z.infer<typeof Cart>

export const CheckoutInput = z
  .strictObject({
    cart_id: CartId.describe("The open cart to order"),
    coupon_code: CouponUid.optional().describe(
      "The user's active coupon at this store: its points pay part of the order"
    )
  })
  .meta({ examples: [{ cart_id: "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a", coupon_code: "K7P2XM9Q" }] })
export type CheckoutInput = z.infer<typeof CheckoutInput>

export const CheckoutResult = z.object({
  success: z.literal(true),
  order_id: Uuid.describe("The order: a redemption validated at the counter like a reward"),
  points_spent: z.number().int(),
  coupon_discount: z.number().int().describe("Points the coupon paid (0 without one)"),
  new_balance: z.number().int(),
  items: z.array(z.object({ product_name: z.string(), quantity: z.number().int() })),
  redemption_code: z.string(),
  qr_code_url: z.string(),
  expires_at: Timestamp
})
export type CheckoutResult = z.infer<typeof CheckoutResult>
