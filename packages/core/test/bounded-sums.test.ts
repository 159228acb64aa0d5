import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { describe, test } from "vitest"
import { AddToCartInput, MAX_CART_LINES, MAX_LINE_QUANTITY } from "../src/cart/contracts.js"
import { Carts } from "../src/cart/service.js"
import { GenerateCouponInput } from "../src/coupons/contracts.js"
import type { ClientId, ProductId, UserId } from "../src/ids.js"
import { CreditPointsInput } from "../src/points/contracts.js"
import { MAX_POINTS } from "../src/amounts.js"
import { Points } from "../src/points/service.js"
import { CreateProductInput } from "../src/products/contracts.js"
import { MAX_MONEY } from "../src/amounts.js"
import { CreateCampaignInput } from "../src/referrals/contracts.js"
import { ReferralCampaigns } from "../src/referrals/service.js"
import { CreateRewardInput } from "../src/rewards/contracts.js"
import { newClient, newEmpresa, newProduct, TestCore } from "./support.js"

const CLIENT = "18e80772-42c3-4276-ae21-37f63b69427a"
const PRODUCT = "3c9b7f42-6d1e-4a8b-9f2c-5e7d8a1b0c64"

/** The 422 a bounded sum refuses with: its one issue, at `loc`. */
const aboveBound = (loc: ReadonlyArray<string>, msg: RegExp) => ({
  _tag: "ValidationFailed",
  issues: [{ loc, msg: expect.stringMatching(msg), type: "less_than_equal" }]
})

const priced = (price: number) => CreateProductInput.safeParse({ name: "Café", points_cost: 1, price })
const added = (quantity: number) =>
  AddToCartInput.safeParse({ store_id: CLIENT, product_uid: PRODUCT, quantity }).success

describe("the contracts' bounds", () => {
  test("take every points amount up to MAX_POINTS and refuse one more", () => {
    const amounts = [
      (points: number) => CreditPointsInput.safeParse({ client_id: CLIENT, points }),
      (points: number) => CreateProductInput.safeParse({ name: "Café", points_cost: points }),
      (points: number) => CreateRewardInput.safeParse({ product_id: PRODUCT, pontos_necessarios: points }),
      (points: number) => GenerateCouponInput.safeParse({ client_id: CLIENT, points }),
      (points: number) =>
        CreateCampaignInput.safeParse({ name: "Indique", referrer_bonus: points, referred_bonus: points })
    ]
    for (const parse of amounts) {
      expect(parse(MAX_POINTS).success).toBe(true)
      expect(parse(MAX_POINTS + 1).success).toBe(false)
    }
    // Any two amounts add up inside int4, the type of the columns that copy one.
    expect(2 * MAX_POINTS).toBeLessThan(2 ** 31)
  })

  test("keep money within MAX_MONEY, a cart add within 100 units, and a cart's worst total a safe integer", () => {
    expect(priced(MAX_MONEY).success).toBe(true)
    expect(priced(MAX_MONEY + 0.01).success).toBe(false)
    expect([added(100), added(101), added(0)]).toEqual([true, false, false])
    expect(MAX_CART_LINES * MAX_LINE_QUANTITY * MAX_POINTS).toBeLessThan(Number.MAX_SAFE_INTEGER)
  })
})

layer(TestCore, { timeout: 60_000 })("a balance's top", (it) => {
  it.effect("a credit past MAX_POINTS is a 422 at points that changes nothing; up to it, it credits", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Ana")
      yield* Points.credit(empresa.id, { client_id: client.id, points: MAX_POINTS - 1 })
      const refused = yield* Effect.flip(Points.credit(empresa.id, { client_id: client.id, points: 2 }))
      expect(refused).toMatchObject(aboveBound(["body", "points"], /999999999 points, has no room for 2 more/))
      expect((yield* Points.balance(empresa.id, client.id)).balance).toBe(MAX_POINTS - 1)
      expect((yield* Points.credit(empresa.id, { client_id: client.id, points: 1 })).balance).toBe(MAX_POINTS)
      // An unknown client is still a 404, not a full balance.
      const missing = "00000000-0000-4000-8000-000000000000" as ClientId
      expect(yield* Effect.flip(Points.credit(empresa.id, { client_id: missing, points: 1 }))).toMatchObject({
        _tag: "NotFound"
      })
    })
  )

  it.effect("parallel credits fill a balance to the top and no further", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Lia")
      const credits = yield* Effect.all(
        Array.from({ length: 8 }, () =>
          Effect.either(Points.credit(empresa.id, { client_id: client.id, points: MAX_POINTS / 4 }))
        ),
        { concurrency: "unbounded" }
      )
      expect(credits.filter(Either.isRight)).toHaveLength(4)
      expect((yield* Points.balance(empresa.id, client.id)).balance).toBe(MAX_POINTS)
    })
  )

  it.effect("a refund past the top is a 422 at the refund's field; the database's check stands behind", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Bia")
      yield* Points.credit(empresa.id, { client_id: client.id, points: 500 })
      const event = { type: "reward", title: "Pedido" } as const
      yield* Points.debit(empresa.id, { clientId: client.id, points: 500, source: "order", event })
      yield* Points.credit(empresa.id, { client_id: client.id, points: MAX_POINTS })
      const refund = { loc: ["path", "redemption_id"], clientId: client.id, points: 500, source: "order", event }
      expect(yield* Effect.flip(Points.refund(empresa.id, refund))).toMatchObject(
        aboveBound(["path", "redemption_id"], /has no room for the 500 this gives back/)
      )
      const write = yield* Effect.flip(sql`UPDATE clients SET balance = ${MAX_POINTS + 1} WHERE id = ${client.id}`)
      expect(String(write.cause)).toMatch(/clients_balance_top/)
    })
  )

  it.effect("cashback past MAX_MONEY is a 422 at the field that asked for it", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Caio")
      const change = { clientId: client.id, source: "reward", description: "Cashback", loc: ["body", "quantity"] }
      expect(yield* Points.cashback(empresa.id, { ...change, amount: MAX_MONEY })).toBe(MAX_MONEY)
      expect(yield* Effect.flip(Points.cashback(empresa.id, { ...change, amount: 0.01 }))).toMatchObject(
        aboveBound(["body", "quantity"], /above the R\$ 1000000000.00 it holds/)
      )
    })
  )

  it.effect("a referral bonus is credited up to the room a balance has, never past the top", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa()
      const referrer = yield* newClient(empresa.id, "Rita")
      const referred = yield* newClient(empresa.id, "Rui")
      yield* sql`UPDATE users SET password_hash = 'not used' WHERE id = ${referrer.userId}`
      yield* sql`UPDATE users SET email_verified_at = now(),
                   pending_referral_code = (SELECT referral_code FROM users WHERE id = ${referrer.userId})
                 WHERE id = ${referred.userId}`
      yield* ReferralCampaigns.create(empresa.id, {
        name: "Indique",
        referrer_bonus: 100,
        referred_bonus: 100,
        starts_at: new Date(Date.now() - 60_000).toISOString(),
        active: true
      })
      yield* Points.credit(empresa.id, { client_id: referrer.id, points: MAX_POINTS - 40 })
      const purchase = yield* Points.credit(empresa.id, { client_id: referred.id, points: MAX_POINTS - 30 })
      expect(purchase.balance).toBe(MAX_POINTS - 30)
      expect((yield* Points.balance(empresa.id, referred.id)).balance).toBe(MAX_POINTS)
      expect((yield* Points.balance(empresa.id, referrer.id)).balance).toBe(MAX_POINTS)
      const bonuses = yield* sql<{ points: number; campaign_bonus: string }>`
        SELECT points, metadata->>'campaign_bonus' AS campaign_bonus FROM activity_events
        WHERE empresa_id = ${empresa.id} AND type = 'referral' ORDER BY points`
      expect(bonuses).toEqual([
        { points: 30, campaign_bonus: "100" },
        { points: 40, campaign_bonus: "100" }
      ])
    })
  )
})

layer(TestCore, { timeout: 60_000 })("a cart's bounds", (it) => {
  it.effect("an add past MAX_POINTS in total, a line or the lines is a 422 that leaves the cart as it was", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const add = (user: UserId, product: ProductId, quantity: number) =>
        Carts.add(user, { store_id: empresa.id, product_uid: product, quantity })
      const user = (yield* newClient(empresa.id, "Duda")).userId as UserId
      const dear = yield* newProduct(empresa.id, { name: "Joia", points_cost: MAX_POINTS })
      // Parallel adds to one cart count each other: one unit fits.
      const adds = yield* Effect.all(
        Array.from({ length: 4 }, () => Effect.either(add(user, dear.id, 1))),
        { concurrency: "unbounded" }
      )
      expect(adds.filter(Either.isRight).map((cart) => cart.right.cart_total)).toEqual([MAX_POINTS])
      expect(yield* Effect.flip(add(user, dear.id, 2))).toMatchObject(
        aboveBound(["body", "quantity"], /would cost 3000000000 points, more than one order can spend/)
      )

      const other = (yield* newClient(empresa.id, "Edu")).userId as UserId
      const cheap = yield* newProduct(empresa.id, { name: "Bala", points_cost: 1 })
      for (let i = 0; i < MAX_LINE_QUANTITY / 100; i++) yield* add(other, cheap.id, 100)
      expect(yield* Effect.flip(add(other, cheap.id, 1))).toMatchObject(
        aboveBound(["body", "quantity"], /1001 × Bala, more than the 1000 units one line takes/)
      )

      for (let i = 1; i < MAX_CART_LINES; i++) {
        const product = yield* newProduct(empresa.id, { name: `Item ${i}`, points_cost: 1 })
        yield* add(other, product.id, 1)
      }
      const one = yield* newProduct(empresa.id, { name: "Mais um", points_cost: 1 })
      expect(yield* Effect.flip(add(other, one.id, 1))).toMatchObject(
        aboveBound(["body", "product_uid"], /holds 100 products, the most one takes/)
      )
      const cart = yield* Carts.get(other, empresa.id)
      expect(cart.items).toHaveLength(MAX_CART_LINES)
      expect(cart.total_points).toBe(MAX_LINE_QUANTITY + MAX_CART_LINES - 1)
    })
  )
})
