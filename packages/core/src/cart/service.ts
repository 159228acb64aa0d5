import { SqlClient } from "@effect/sql"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { userClientAt } from "../accounts/service.js"
import { Coupons } from "../coupons/service.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound, tooLarge } from "../errors.js"
import type { EmpresaId, ProductId, UserId } from "../ids.js"
import { MAX_POINTS } from "../amounts.js"
import { Points } from "../points/service.js"
import { Products } from "../products/service.js"
import { Redemptions } from "../redemptions/service.js"
import {
  MAX_CART_LINES,
  MAX_LINE_QUANTITY,
  type AddToCartInput,
  type Cart,
  type CartId,
  type CheckoutInput,
  type CheckoutResult
} from "./contracts.js"
import { traced } from "../tracing.js"

/** A cart that costs more than one order may spend: `loc` is the field that brought it there. */
const tooCostly = (loc: ReadonlyArray<string>, total: number) =>
  tooLarge(loc, `The cart would cost ${total} points, more than one order can spend (${MAX_POINTS})`)

/**
 * A user's cart per store, ordered with points (docs/architecture.md, "End users"): one open cart per user and
 * store (a unique partial index), prices and stock checked again at checkout, and the order is a
 * redemption the counter validates by its code.
 */
export class Carts extends Effect.Service<Carts>()("core/Carts", {
  accessors: true,
  dependencies: [Products.Default, Points.Default, Coupons.Default, Empresas.Default, Redemptions.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const products = yield* Products
    const points = yield* Points
    const coupons = yield* Coupons
    const empresas = yield* Empresas
    const redemptions = yield* Redemptions

    /** The cart's cost at today's prices (bigint: a line alone can pass int4) and its number of lines. */
    const totalsOf = (cartId: CartId) =>
      sql<{ total: number; lines: number }>`
        SELECT coalesce(sum(ci.quantity::bigint * p.points_cost), 0) AS total, count(*)::int AS lines
        FROM cart_items ci JOIN products p ON p.empresa_id = ci.empresa_id AND p.id = ci.product_id
        WHERE ci.cart_id = ${cartId}`.pipe(Effect.map(([row]) => row!))

    /**
     * Adds units to the open cart (made on the first add); the product must be active with the
     * stock, and the cart within its bounds (docs/decisions.md, "Bounded sums"). The cart's row,
     * locked by the upsert, serializes adds to one cart, so parallel adds count each other.
     */
    const add = traced("Carts.add")(function* (userId: UserId, input: AddToCartInput) {
      const product = yield* products.get(input.store_id, input.product_uid)
      if (!product.active) {
        return yield* new Conflict({ code: "PRODUCT_INACTIVE", message: `Product ${product.name} is not active` })
      }
      const [cart] = yield* sql<{ id: CartId }>`
        INSERT INTO carts (empresa_id, user_id) VALUES (${input.store_id}, ${userId})
        ON CONFLICT (empresa_id, user_id) WHERE status = 'open' DO UPDATE SET updated_at = now()
        RETURNING id`
      const [line] = yield* sql<{ quantity: number }>`
        INSERT INTO cart_items (empresa_id, cart_id, product_id, quantity)
        VALUES (${input.store_id}, ${cart!.id}, ${product.id}, ${input.quantity})
        ON CONFLICT (empresa_id, cart_id, product_id) DO UPDATE SET quantity = cart_items.quantity + EXCLUDED.quantity
        RETURNING quantity`
      if (product.stock !== null && line!.quantity > product.stock) {
        return yield* new Conflict({
          code: "OUT_OF_STOCK",
          message: `${product.name} has ${product.stock} left; the cart would hold ${line!.quantity}`
        })
      }
      if (line!.quantity > MAX_LINE_QUANTITY) {
        return yield* tooLarge(
          ["body", "quantity"],
          `The cart would hold ${line!.quantity} × ${product.name}, more than the ${MAX_LINE_QUANTITY} units ` +
            "one line takes"
        )
      }
      const { total, lines } = yield* totalsOf(cart!.id)
      if (lines > MAX_CART_LINES) {
        return yield* tooLarge(["body", "product_uid"], `The cart holds ${MAX_CART_LINES} products, the most one takes`)
      }
      if (total > MAX_POINTS) return yield* tooCostly(["body", "quantity"], total)
      return {
        success: true,
        cart_id: cart!.id,
        item: {
          product_uid: product.id,
          product_name: product.name,
          quantity: line!.quantity,
          points_cost: product.points_cost
        },
        cart_total: total
      } as const
    }, inTransaction(sql))

    const get = traced("Carts.get")(function* (userId: UserId, storeId: EmpresaId) {
      yield* empresas.get(storeId)
      const balance = (yield* userClientAt(userId, storeId))?.balance ?? 0
      const [cart] = yield* sql<{ id: CartId }>`
        SELECT id FROM carts WHERE empresa_id = ${storeId} AND user_id = ${userId} AND status = 'open'`
      const items =
        cart === undefined
          ? []
          : yield* sql<Cart["items"][number]>`
              SELECT ci.product_id AS product_uid, p.name AS product_name, ci.quantity, p.points_cost, p.image_url,
                     p.active AND (p.stock IS NULL OR p.stock >= ci.quantity) AS available
              FROM cart_items ci JOIN products p ON p.empresa_id = ci.empresa_id AND p.id = ci.product_id
              WHERE ci.empresa_id = ${storeId} AND ci.cart_id = ${cart.id}
              ORDER BY ci.created_at, ci.product_id`
      const total = items.reduce((sum, item) => sum + item.quantity * item.points_cost, 0)
      return {
        cart_id: cart?.id ?? null,
        store_id: storeId,
        items: [...items],
        total_points: total,
        user_balance: balance,
        can_checkout: items.length > 0 && items.every((item) => item.available) && balance >= total
      } satisfies Cart
    })

    /**
     * Orders the cart in one transaction: the conditional close of the cart lets one of many
     * parallel checkouts through; each line's stock is taken (in product order, so two carts never
     * deadlock) at today's price; the coupon's points pay first and it is marked used; the rest is
     * spent. Lock order: cart, products, coupon, client.
     */
    const checkout = traced("Carts.checkout")(function* (userId: UserId, input: CheckoutInput) {
      const [cart] = yield* sql<{ empresa_id: EmpresaId }>`
        UPDATE carts SET status = 'checked_out', updated_at = now()
        WHERE id = ${input.cart_id} AND user_id = ${userId} AND status = 'open'
        RETURNING empresa_id`
      if (cart === undefined) {
        const [closed] = yield* sql`SELECT 1 FROM carts WHERE id = ${input.cart_id} AND user_id = ${userId}`
        if (closed === undefined) return yield* new NotFound({ resource: "Cart", id: input.cart_id })
        return yield* new Conflict({
          code: "CART_CHECKED_OUT",
          message: `Cart ${input.cart_id} was already checked out`
        })
      }
      const empresaId = cart.empresa_id
      const lines = yield* sql<{ product_id: ProductId; quantity: number }>`
        SELECT product_id, quantity FROM cart_items WHERE empresa_id = ${empresaId} AND cart_id = ${input.cart_id}
        ORDER BY product_id`
      if (lines.length === 0) return yield* new Conflict({ code: "CART_EMPTY", message: "The cart has no items" })
      const client = yield* userClientAt(userId, empresaId)
      if (client === undefined) {
        return yield* new Conflict({ code: "INSUFFICIENT_POINTS", message: "You have no points at this store" })
      }
      const items = []
      let total = 0
      for (const line of lines) {
        const product = yield* products.get(empresaId, line.product_id)
        if (!product.active) {
          return yield* new Conflict({ code: "PRODUCT_INACTIVE", message: `Product ${product.name} is not active` })
        }
        const taken = yield* products.takeStock(empresaId, line.product_id, line.quantity)
        total += taken.points_cost * line.quantity
        items.push({ product_uid: taken.id, product_name: taken.name, quantity: line.quantity })
      }
      if (total > MAX_POINTS) return yield* tooCostly(["body", "cart_id"], total)
      const coupon =
        input.coupon_code === undefined ? undefined : yield* coupons.useFor(empresaId, input.coupon_code, client.id)
      const discount = Math.min(coupon?.points_spent ?? 0, total)
      const cost = total - discount
      const order = yield* redemptions.create({
        empresaId,
        clientId: client.id,
        kind: "order",
        productName: items.map((item) => `${item.quantity} × ${item.product_name}`).join(", "),
        quantity: items.reduce((sum, item) => sum + item.quantity, 0),
        pointsSpent: cost,
        items
      })
      const spent = yield* points.debit(empresaId, {
        clientId: client.id,
        points: cost,
        source: "order",
        description: order.product_name,
        event: {
          type: "reward",
          title: `Order ${order.code}`,
          metadata: {
            reward_uid: null,
            product_name: order.product_name,
            order_id: order.id,
            code: order.code,
            items_count: items.length,
            coupon_uid: coupon?.uid ?? null,
            coupon_discount: discount
          }
        }
      })
      yield* sql`UPDATE carts SET order_id = ${order.id} WHERE empresa_id = ${empresaId} AND id = ${input.cart_id}`
      const presented = redemptions.present(order)
      return {
        success: true,
        order_id: order.id,
        points_spent: cost,
        coupon_discount: discount,
        new_balance: spent.balance,
        items: items.map(({ product_name, quantity }) => ({ product_name, quantity })),
        redemption_code: order.code,
        qr_code_url: presented.qr_code_url,
        expires_at: order.expires_at
      } satisfies CheckoutResult
    }, inTransaction(sql))

    return sqlErrorsAsDefects({ add, get, checkout })
  })
}) {}
