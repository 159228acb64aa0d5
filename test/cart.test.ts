import { describe, expect, it } from "vitest"
import {
  call,
  checkoutStorm,
  createProduct,
  generateCoupon,
  type Member,
  expectRefusal,
  stockOf as stockOfProduct,
  useEndUserServer
} from "./support/index.js"

const { server, tenant, member } = await useEndUserServer()
const add = (who: Member, productId: string, quantity = 1) =>
  call(server, "/api/v1/cart/add", {
    headers: who.auth,
    body: { store_id: tenant.empresa.id, product_uid: productId, quantity }
  })
const checkout = (who: Member, body: Record<string, unknown>) =>
  call(server, "/api/v1/cart/checkout", { headers: who.auth, body })
const balanceOf = async (who: Member) =>
  (await call(server, `/api/v1/public/points/${who.clientId}`, { key: tenant.key })).body.balance as number
const stockOf = (productId: string) => stockOfProduct(server, tenant, productId)

describe("cart", () => {
  it("adds, shows the cart and checks it out into an order the counter validates", async () => {
    const ana = await member(1000)
    const cafe = await createProduct(server, tenant, { name: "Café", points_cost: 100, stock: 10 })
    const bolo = await createProduct(server, tenant, { name: "Bolo", points_cost: 250 })
    const first = await add(ana, cafe.id, 2)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ success: true, item: { quantity: 2, points_cost: 100 }, cart_total: 200 })
    const second = await add(ana, bolo.id)
    expect(second.body.cart_id).toBe(first.body.cart_id)
    expect(second.body.cart_total).toBe(450)

    const cart = await call(server, `/api/v1/cart/${tenant.empresa.id}`, { headers: ana.auth })
    expect(cart.body).toMatchObject({ cart_id: first.body.cart_id, total_points: 450, user_balance: 1000 })
    expect(cart.body.can_checkout).toBe(true)
    expect(cart.body.items).toHaveLength(2)

    const order = await checkout(ana, { cart_id: first.body.cart_id })
    expect(order.status).toBe(200)
    expect(order.body).toMatchObject({ success: true, points_spent: 450, new_balance: 550 })
    expect(order.body.items).toEqual(
      expect.arrayContaining([
        { product_name: "Café", quantity: 2 },
        { product_name: "Bolo", quantity: 1 }
      ])
    )
    expect(await stockOf(cafe.id)).toBe(8)
    expect(await balanceOf(ana)).toBe(550)
    expectRefusal(await checkout(ana, { cart_id: first.body.cart_id }), "CART_CHECKED_OUT")

    const empty = await call(server, `/api/v1/cart/${tenant.empresa.id}`, { headers: ana.auth })
    expect(empty.body).toMatchObject({ cart_id: null, items: [], can_checkout: false })

    const validated = await call(server, "/api/v1/public/redemptions/validate", {
      key: tenant.key,
      body: { code: order.body.redemption_code }
    })
    expect(validated.status).toBe(200)
    expect(validated.body).toMatchObject({ kind: "order", id: order.body.order_id, status: "validated" })
  })

  it("applies the user's coupon, marking it used in the same checkout", async () => {
    const ana = await member(500)
    const coupon = await generateCoupon(server, tenant, { client_id: ana.clientId, points: 100 })
    const cafe = await createProduct(server, tenant, { name: "Café", points_cost: 150 })
    const { cart_id } = (await add(ana, cafe.id)).body
    const order = await checkout(ana, { cart_id, coupon_code: coupon.uid })
    expect(order.status).toBe(200)
    expect(order.body).toMatchObject({ points_spent: 50, coupon_discount: 100, new_balance: 350 })
    const used = await call(server, `/api/v1/public/coupons/${coupon.uid}`, { key: tenant.key })
    expect(used.body.status).toBe("used")

    const again = (await add(ana, cafe.id)).body.cart_id
    expectRefusal(await checkout(ana, { cart_id: again, coupon_code: coupon.uid }), "COUPON_USED")
    // The refused checkout rolled back: the cart is still open and the balance untouched.
    expect((await call(server, `/api/v1/cart/${tenant.empresa.id}`, { headers: ana.auth })).body.cart_id).toBe(again)
    expect(await balanceOf(ana)).toBe(350)
  })

  it("checks prices, stock and points again at checkout", async () => {
    const ana = await member(100)
    const item = await createProduct(server, tenant, { name: "Caro", points_cost: 80, stock: 1 })
    expectRefusal(await add(ana, item.id, 2), "OUT_OF_STOCK")
    const { cart_id } = (await add(ana, item.id)).body
    await call(server, `/api/v1/public/products/${item.id}`, {
      key: tenant.key,
      method: "PUT",
      body: { points_cost: 200 }
    })
    expectRefusal(await checkout(ana, { cart_id }), "INSUFFICIENT_POINTS")
    expect(await stockOf(item.id)).toBe(1)
    expect(await balanceOf(ana)).toBe(100)
  })

  it("settles 20 parallel checkouts of one cart once", () => checkoutStorm({ servers: [server], tenant, member }))

  it("two users racing for the last unit: one order, one refusal", async () => {
    const [ana, bia] = await Promise.all([member(500), member(500)])
    const item = await createProduct(server, tenant, { name: "Último", points_cost: 100, stock: 1 })
    const carts = await Promise.all([add(ana, item.id), add(bia, item.id)])
    const results = await Promise.all([
      checkout(ana, { cart_id: carts[0].body.cart_id }),
      checkout(bia, { cart_id: carts[1].body.cart_id })
    ])
    expect(results.map((res) => res.status).toSorted()).toEqual([200, 409])
    expectRefusal(
      results.find((res) => res.status === 409)!,
      "OUT_OF_STOCK"
    )
    expect(await stockOf(item.id)).toBe(0)
    expect((await balanceOf(ana)) + (await balanceOf(bia))).toBe(900)
  })

  it("hides another user's cart (404) and needs a token (401)", async () => {
    const [ana, bia] = await Promise.all([member(500), member(500)])
    const item = await createProduct(server, tenant, { name: "Meu", points_cost: 10 })
    const { cart_id } = (await add(ana, item.id)).body
    expect((await checkout(bia, { cart_id })).status).toBe(404)
    expect((await call(server, "/api/v1/cart/checkout", { body: { cart_id } })).status).toBe(401)
  })
})
