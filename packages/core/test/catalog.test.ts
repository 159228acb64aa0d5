import { expect, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Products } from "../src/products/service.js"
import { Rewards } from "../src/rewards/service.js"
import { newEmpresa, newProduct, TestCore } from "./support.js"

const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? result.left : undefined))

layer(TestCore, { timeout: 60_000 })("stock takes (for redemptions and the cart)", (it) => {
  it.effect("Products.takeStock never oversells under concurrent takers", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const product = yield* newProduct(empresa.id, { stock: 5 })
      const results = yield* Effect.all(
        Array.from({ length: 12 }, () => Effect.either(Products.takeStock(empresa.id, product.id, 1))),
        { concurrency: "unbounded" }
      )
      expect(results.filter(Either.isRight)).toHaveLength(5)
      const refused = results.filter(Either.isLeft).map((r) => r.left)
      expect(refused).toHaveLength(7)
      for (const error of refused) expect(error).toMatchObject({ _tag: "Conflict", code: "OUT_OF_STOCK" })
      expect((yield* Products.get(empresa.id, product.id)).stock).toBe(0)
    })
  )

  it.effect(
    "Products.takeStock refuses more than is left, changing nothing, and leaves unlimited stock unlimited",
    () =>
      Effect.gen(function* () {
        const empresa = yield* newEmpresa()
        const product = yield* newProduct(empresa.id, { stock: 2 })
        const tooMany = yield* refusal(Products.takeStock(empresa.id, product.id, 3))
        expect(tooMany).toMatchObject({
          _tag: "Conflict",
          code: "OUT_OF_STOCK",
          message: "Café has 2 left; 3 requested"
        })
        expect((yield* Products.takeStock(empresa.id, product.id, 2)).stock).toBe(0)

        const unlimited = yield* newProduct(empresa.id, { stock: null })
        expect((yield* Products.takeStock(empresa.id, unlimited.id, 1000)).stock).toBeNull()
      })
  )

  it.effect("Products.takeStock of another empresa's product is NotFound", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const other = yield* newEmpresa()
      const theirs = yield* newProduct(other.id, { stock: 5 })
      expect(yield* refusal(Products.takeStock(empresa.id, theirs.id, 1))).toMatchObject({
        _tag: "NotFound",
        resource: "Product"
      })
      expect((yield* Products.get(other.id, theirs.id)).stock).toBe(5)
    })
  )

  it.effect("Rewards.takeStock never oversells, leaves unlimited unlimited, and is tenant-scoped", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const product = yield* newProduct(empresa.id, { stock: null })
      const reward = yield* Rewards.create(empresa.id, { product_id: product.id, stock: 3, active: true })
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () => Effect.either(Rewards.takeStock(empresa.id, reward.id, 1))),
        { concurrency: "unbounded" }
      )
      expect(results.filter(Either.isRight)).toHaveLength(3)
      for (const r of results.filter(Either.isLeft))
        expect(r.left).toMatchObject({ _tag: "Conflict", code: "OUT_OF_STOCK" })
      const soldOut = yield* Rewards.get(empresa.id, reward.id)
      expect(soldOut).toMatchObject({ stock: 0, available: false })

      const unlimited = yield* Rewards.create(empresa.id, { product_id: product.id, active: true })
      const taken = yield* Rewards.takeStock(empresa.id, unlimited.id, 50)
      expect(taken).toMatchObject({ stock: null, product: { id: product.id, name: "Café" } })

      const other = yield* newEmpresa()
      expect(yield* refusal(Rewards.takeStock(other.id, unlimited.id, 1))).toMatchObject({
        _tag: "NotFound",
        resource: "Reward"
      })
    })
  )
})
