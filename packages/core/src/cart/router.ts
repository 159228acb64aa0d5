import { refuses, router, runEffect, userProcedure } from "../trpc.js"
import { MAX_POINTS } from "../amounts.js"
import {
  AddToCartInput,
  AddToCartResult,
  Cart,
  CartRef,
  CheckoutInput,
  CheckoutResult,
  MAX_CART_LINES,
  MAX_LINE_QUANTITY
} from "./contracts.js"
import { Carts } from "./service.js"

const tags = ["Cart"]

export const cartRouter = router({
  add: userProcedure
    .concat(refuses("NOT_FOUND", "PRODUCT_INACTIVE", "OUT_OF_STOCK"))
    .meta({
      openapi: {
        method: "POST",
        path: "/cart/add",
        tags,
        summary: "Add a product to the store's cart",
        description:
          "Opens the user's cart at the store on the first add (one open cart per store) and adds the units to " +
          "the product's line. The product must be active with the stock for the whole line. A line holds " +
          `${MAX_LINE_QUANTITY} units and a cart ${MAX_CART_LINES} products, costing at most ${MAX_POINTS} points: ` +
          "past any of these, the input is refused as invalid."
      }
    })
    .input(AddToCartInput)
    .output(AddToCartResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Carts.add(ctx.userId, input))),

  get: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/cart/{store_id}",
        tags,
        summary: "The user's open cart at a store",
        description: "At today's prices; without an open cart, an empty one with `cart_id` null."
      }
    })
    .input(CartRef)
    .output(Cart)
    .query(({ ctx, input }) => runEffect(ctx, Carts.get(ctx.userId, input.store_id))),

  checkout: userProcedure
    .concat(
      refuses(
        "NOT_FOUND",
        "CART_CHECKED_OUT",
        "CART_EMPTY",
        "INSUFFICIENT_POINTS",
        "OUT_OF_STOCK",
        "PRODUCT_INACTIVE",
        "COUPON_USED",
        "COUPON_EXPIRED",
        "COUPON_CANCELLED"
      )
    )
    .meta({
      openapi: {
        method: "POST",
        path: "/cart/checkout",
        tags,
        summary: "Order the cart with points",
        description:
          "Checks prices and stock again, spends the points and answers the order: a pending redemption whose " +
          "`redemption_code` the counter validates like a reward's. `coupon_code`, the user's active coupon at " +
          "the store, pays with the points it cost and is marked used in the same transaction. A cart whose prices " +
          `rose past ${MAX_POINTS} points in all is refused as invalid at \`cart_id\`, with nothing taken.`
      }
    })
    .input(CheckoutInput)
    .output(CheckoutResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Carts.checkout(ctx.userId, input)))
})
