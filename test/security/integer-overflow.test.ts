import { describe, expect, it } from "vitest"
import { memberOf, useEndUserServer, type Member } from "../support/accounts.js"
import { balanceOf, createProduct, creditPoints, generateCoupon, stockOf } from "../support/fixtures.js"
import { call, createClient, createTenant } from "../support/http.js"
import { nfceFixtures, nfceShop, offlineQr, onlineQr, scan, settled } from "../support/nfce.js"

/**
 * The attack (security issue 28, item 6): amounts each valid alone whose sum overflows a column or
 * a safe integer. A cart of 3 × a 10^9-point product was a 500; credits piled a balance past what
 * its sums hold; a receipt's 13-digit total left its task retrying. Every such sum is bounded: a
 * 422 naming the field, nothing moved, and a task that settles instead of retrying.
 */
const TOP = 1_000_000_000
const fixtures = nfceFixtures()
const { server, sink, tenant, member } = await useEndUserServer(fixtures.env)

const addToCart = (user: Member, productId: string, quantity: number) =>
  call(server, "/api/v1/cart/add", {
    headers: user.auth,
    body: { store_id: tenant.empresa.id, product_uid: productId, quantity }
  })

/** A 422 with one issue at `loc`, whose message matches `msg`. */
const expectAboveBound = (res: { status: number; body: any }, loc: ReadonlyArray<string>, msg: RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422)
  expect(res.body.detail).toEqual([{ loc, msg: expect.stringMatching(msg), type: "less_than_equal" }])
}

describe("integer overflow", () => {
  it("a cart of 3 × a 10^9-point product is a 422, not a 500, and moves no points", async () => {
    const user = await member(TOP)
    const jewel = await createProduct(server, tenant, { name: "Joia", points_cost: TOP, stock: 10 })
    expectAboveBound(await addToCart(user, jewel.id, 3), ["body", "quantity"], /cost 3000000000 points/)

    // A cart that prices raised after its adds: the checkout says no, with nothing taken.
    const candy = await createProduct(server, tenant, { name: "Bala", points_cost: 1, stock: 10 })
    const added = await addToCart(user, candy.id, 3)
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    const raised = await call(server, `/api/v1/public/products/${candy.id}`, {
      method: "PUT",
      key: tenant.key,
      body: { points_cost: TOP }
    })
    expect(raised.status, JSON.stringify(raised.body)).toBe(200)
    const cart = await call(server, `/api/v1/cart/${tenant.empresa.id}`, { headers: user.auth })
    expect(cart.body).toMatchObject({ total_points: 3 * TOP, user_balance: TOP, can_checkout: false })
    const order = await call(server, "/api/v1/cart/checkout", {
      headers: user.auth,
      body: { cart_id: added.body.cart_id }
    })
    expectAboveBound(order, ["body", "cart_id"], /cost 3000000000 points, more than one order can spend/)
    expect(await balanceOf(server, tenant, user.clientId)).toBe(TOP)
    expect(await stockOf(server, tenant, candy.id)).toBe(10)
  })

  it("a credit that would push a balance past 10^9 is a 422 at points; the sums of balances still add up", async () => {
    const user = await member(TOP)
    const refused = await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      body: { client_id: user.clientId, points: 1 }
    })
    expectAboveBound(refused, ["body", "points"], /balance, 1000000000 points, has no room for 1 more/)
    expect(await balanceOf(server, tenant, user.clientId)).toBe(TOP)

    // Spent and earned again: a lifetime past 2^31 points, in the wallet's sums.
    for (let round = 0; round < 2; round++) {
      await generateCoupon(server, tenant, { client_id: user.clientId, points: TOP })
      await creditPoints(server, tenant, user.clientId, TOP)
    }
    const wallet = await call(server, `/api/v1/establishments/stores/${tenant.empresa.id}/wallet`, {
      headers: user.auth
    })
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(200)
    expect(wallet.body).toMatchObject({ saldo_pontos: TOP, total_earned: 3 * TOP, total_spent: 2 * TOP })

    // Full balances at three stores: more than int4 holds, added up in the profile.
    for (let store = 0; store < 2; store++) {
      const other = await createTenant(server)
      const client = await createClient(server, other, { email: user.user.email })
      await creditPoints(server, other, client.id, TOP)
    }
    const me = await call(server, "/api/v1/users/me", { headers: user.auth })
    expect(me.status, JSON.stringify(me.body)).toBe(200)
    expect(me.body.stats.total_points).toBe(3 * TOP)
  })

  it("a QR total of 9999999999999.99 is a 422 at scan; a state page saying so fails its task at once", async () => {
    const { store, offlineKey, onlineKey } = await nfceShop(server)
    const user = await memberOf(server, sink, store, 0)
    const offline = await scan(server, user, offlineQr("9999999999999.99", offlineKey()))
    expect(offline.status, JSON.stringify(offline.body)).toBe(422)
    expect(offline.body.detail).toEqual([
      { loc: ["body", "qr_code"], msg: expect.stringContaining("R$"), type: "total_above_limit" }
    ])
    expect((await call(server, "/api/v1/public/nfce/invoices", { key: store.key })).body.total).toBe(0)

    // An online QR carries no total: the state's page states it, and the task settles on it.
    const key = onlineKey()
    fixtures.add({ [key]: { status: "ok", total_cents: 999_999_999_999_999, items_count: 1, issued_at: null } })
    const online = await scan(server, user, onlineQr(key))
    expect(online.status, JSON.stringify(online.body)).toBe(202)
    const task = await settled(server, user, online.body.task_id)
    expect(task).toMatchObject({ status: "failed", points: null, message: expect.stringMatching(/above the/) })
    expect(await balanceOf(server, store, user.clientId)).toBe(0)
  })

  it("a receipt whose points a full balance has no room for fails its task instead of retrying", async () => {
    const { store, onlineKey } = await nfceShop(server)
    const user = await memberOf(server, sink, store, TOP)
    const key = onlineKey()
    fixtures.add({ [key]: { status: "ok", total_cents: 1000, items_count: 1, issued_at: null } })
    const res = await scan(server, user, onlineQr(key))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const task = await settled(server, user, res.body.task_id)
    expect(task).toMatchObject({
      status: "failed",
      points: null,
      message: expect.stringMatching(/has no room for 15 more: a balance holds at most 1000000000 points/)
    })
    expect(await balanceOf(server, store, user.clientId)).toBe(TOP)
  })
})
