import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { call, createProduct, createReward, createTenant, useServer, type ApiRecord, problem } from "./support/index.js"

const server = useServer()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const NEXT_YEAR = new Date(Date.now() + 365 * 86_400_000).toISOString()

/** The product these rewards point at: every field of its summary set. */
const ESPRESSO = {
  description: "Expresso duplo",
  image_url: "https://cdn.example.com/expresso.jpg",
  category: "bebidas"
}

const summaryOf = ({ id, name, description, image_url, category }: ApiRecord) => ({
  id,
  name,
  description,
  image_url,
  category
})

const patch = (body: Record<string, unknown>) => ({ method: "PATCH", body })

describe("rewards.create and rewards.get", () => {
  it("creates with every field, nesting the product summary", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, ESPRESSO)
    const res = await call(server, "/api/v1/public/rewards", {
      key: tenant.key,
      body: {
        product_id: product.id,
        pontos_necessarios: 100,
        cashback_value: 2.5,
        stock: 25,
        expires_at: "2099-12-31T23:59:59-03:00",
        per_user_limit: 2,
        active: true
      }
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      product: summaryOf(product),
      pontos_necessarios: 100,
      cashback_value: 2.5,
      stock: 25,
      expires_at: "2100-01-01T02:59:59.000Z",
      per_user_limit: 2,
      active: true,
      available: true,
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at
    })
    const fetched = await call(server, `/api/v1/public/rewards/${res.body.id}`, { key: tenant.key })
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(res.body)
  })

  it("defaults to the product's points cost and no limits", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, { ...ESPRESSO, points_cost: 80 })
    const res = await call(server, "/api/v1/public/rewards", { key: tenant.key, body: { product_id: product.id } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      product: summaryOf(product),
      pontos_necessarios: 80,
      cashback_value: null,
      stock: null,
      expires_at: null,
      per_user_limit: null,
      active: true,
      available: true
    })
  })

  it("accepts an inactive product, and the reward is then unavailable", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, { ...ESPRESSO, active: false })
    const res = await call(server, "/api/v1/public/rewards", { key: tenant.key, body: { product_id: product.id } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ active: true, available: false })
  })
})

describe("list_rewards", () => {
  it("lists redeemable rewards newest first as a bare array; include_unavailable lists all", async () => {
    const tenant = await createTenant(server)
    const coffee = await createProduct(server, tenant, { ...ESPRESSO, name: "Café" })
    const cake = await createProduct(server, tenant, {
      name: "Bolo",
      description: null,
      image_url: null,
      category: null
    })
    const retired = await createProduct(server, tenant, { ...ESPRESSO, name: "Antigo" })
    const unlimited = await createReward(server, tenant, { product_id: coffee.id })
    const limited = await createReward(server, tenant, {
      product_id: cake.id,
      stock: 3,
      expires_at: NEXT_YEAR,
      per_user_limit: 1
    })
    const soldOut = await createReward(server, tenant, { product_id: coffee.id, stock: 0 })
    const inactive = await createReward(server, tenant, { product_id: cake.id, active: false })
    const ofRetired = await createReward(server, tenant, { product_id: retired.id })
    await call(server, `/api/v1/public/products/${retired.id}`, {
      key: tenant.key,
      method: "PUT",
      body: { active: false }
    })
    const expiring = await createReward(server, tenant, {
      product_id: coffee.id,
      expires_at: new Date(Date.now() + 2500).toISOString()
    })

    const before = await call(server, "/api/v1/public/rewards", { key: tenant.key })
    expect(before.body.map((r: { id: string }) => r.id)).toEqual([expiring.id, limited.id, unlimited.id])
    await sleep(Date.parse(expiring.expires_at!) - Date.now() + 100)

    const res = await call(server, "/api/v1/public/rewards", { key: tenant.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      {
        id: limited.id,
        product: summaryOf(cake),
        pontos_necessarios: 120,
        cashback_value: null,
        stock: 3,
        expires_at: NEXT_YEAR,
        per_user_limit: 1,
        active: true,
        available: true,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO)
      },
      expect.objectContaining({ id: unlimited.id, product: summaryOf(coffee), available: true })
    ])

    const all = await call(server, "/api/v1/public/rewards?include_unavailable=true", { key: tenant.key })
    expect(all.body.map((r: { id: string; available: boolean }) => [r.id, r.available])).toEqual([
      [expiring.id, false],
      [ofRetired.id, false],
      [inactive.id, false],
      [soldOut.id, false],
      [limited.id, true],
      [unlimited.id, true]
    ])

    const ofCoffee = await call(server, `/api/v1/public/rewards?product_id=${coffee.id}&include_unavailable=1`, {
      key: tenant.key
    })
    expect(ofCoffee.body.map((r: { id: string }) => r.id)).toEqual([expiring.id, soldOut.id, unlimited.id])
  })

  it("never shows another empresa's rewards", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const theirs = await createProduct(server, other, ESPRESSO)
    await createReward(server, other, { product_id: theirs.id })
    const res = await call(server, "/api/v1/public/rewards?include_unavailable=true", { key: tenant.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([])
    const byTheirProduct = await call(
      server,
      `/api/v1/public/rewards?product_id=${theirs.id}&include_unavailable=true`,
      {
        key: tenant.key
      }
    )
    expect(byTheirProduct.body).toEqual([])
  })
})

describe("rewards.update (PATCH)", () => {
  it("changes the fields sent, keeps the others, and clears with null", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, ESPRESSO)
    const reward = await createReward(server, tenant, {
      product_id: product.id,
      pontos_necessarios: 100,
      cashback_value: 1,
      stock: 10,
      expires_at: NEXT_YEAR,
      per_user_limit: 3
    })
    const res = await call(server, `/api/v1/public/rewards/${reward.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { pontos_necessarios: 90, stock: 0 }
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...reward,
      pontos_necessarios: 90,
      stock: 0,
      available: false,
      updated_at: expect.stringMatching(ISO)
    })
    expect(res.body.updated_at >= reward.updated_at).toBe(true)

    const cleared = await call(server, `/api/v1/public/rewards/${reward.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { cashback_value: null, stock: null, expires_at: null, per_user_limit: null }
    })
    expect(cleared.body).toMatchObject({
      id: reward.id,
      product: summaryOf(product),
      pontos_necessarios: 90,
      cashback_value: null,
      stock: null,
      expires_at: null,
      per_user_limit: null,
      active: true,
      available: true
    })

    const deactivated = await call(server, `/api/v1/public/rewards/${reward.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { active: false }
    })
    expect(deactivated.body).toMatchObject({ active: false, available: false, pontos_necessarios: 90 })
    const fetched = await call(server, `/api/v1/public/rewards/${reward.id}`, { key: tenant.key })
    expect(fetched.body).toEqual(deactivated.body)
    const list = await call(server, "/api/v1/public/rewards", { key: tenant.key })
    expect(list.body).toEqual([])
  })
})

describe("tenant isolation", () => {
  it("answers 404 for another empresa's product and reward ids, changing nothing", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const theirProduct = await createProduct(server, other, ESPRESSO)
    const theirReward = await createReward(server, other, { product_id: theirProduct.id, stock: 5 })
    const unknown = "00000000-0000-4000-8000-000000000000"

    for (const productId of [theirProduct.id, unknown]) {
      const res = await call(server, "/api/v1/public/rewards", { key: tenant.key, body: { product_id: productId } })
      expect(res.status).toBe(404)
      expect(res.body).toEqual(problem(`Product ${productId} not found`, "NOT_FOUND"))
    }
    for (const rewardId of [theirReward.id, unknown]) {
      const get = await call(server, `/api/v1/public/rewards/${rewardId}`, { key: tenant.key })
      expect(get.status).toBe(404)
      expect(get.body).toEqual(problem(`Reward ${rewardId} not found`, "NOT_FOUND"))
      const patched = await call(server, `/api/v1/public/rewards/${rewardId}`, {
        key: tenant.key,
        method: "PATCH",
        body: { stock: 0 }
      })
      expect(patched.status).toBe(404)
      expect(patched.body).toEqual(problem(`Reward ${rewardId} not found`, "NOT_FOUND"))
    }
    const own = await call(server, "/api/v1/public/rewards?include_unavailable=true", { key: tenant.key })
    expect(own.body).toEqual([])
    const intact = await call(server, `/api/v1/public/rewards/${theirReward.id}`, { key: other.key })
    expect(intact.body).toMatchObject({ stock: 5, available: true })
  })
})

describe("invalid input", () => {
  it("is a 422 naming each bad field, and changes nothing", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, ESPRESSO)
    const reward = await createReward(server, tenant, { product_id: product.id, stock: 5 })
    const past = new Date(Date.now() - 60_000).toISOString()
    const create = (body: Record<string, unknown>) => ({ body: { product_id: product.id, ...body } })
    const rewardPath = `/api/v1/public/rewards/${reward.id}`
    const cases: Array<[string, Parameters<typeof call>[2], unknown[], unknown]> = [
      ["/api/v1/public/rewards", { body: {} }, ["body", "product_id"], "missing"],
      ["/api/v1/public/rewards", create({ product_id: "abc" }), ["body", "product_id"], "uuid_parsing"],
      [
        "/api/v1/public/rewards",
        create({ pontos_necessarios: 0 }),
        ["body", "pontos_necessarios"],
        "greater_than_equal"
      ],
      [
        "/api/v1/public/rewards",
        create({ pontos_necessarios: -10 }),
        ["body", "pontos_necessarios"],
        "greater_than_equal"
      ],
      ["/api/v1/public/rewards", create({ pontos_necessarios: 2.5 }), ["body", "pontos_necessarios"], "int_type"],
      ["/api/v1/public/rewards", create({ cashback_value: -1 }), ["body", "cashback_value"], "greater_than_equal"],
      ["/api/v1/public/rewards", create({ cashback_value: 0.001 }), ["body", "cashback_value"], "multiple_of"],
      ["/api/v1/public/rewards", create({ stock: -1 }), ["body", "stock"], "greater_than_equal"],
      ["/api/v1/public/rewards", create({ expires_at: past }), ["body", "expires_at"], "value_error"],
      [
        "/api/v1/public/rewards",
        create({ expires_at: "next week" }),
        ["body", "expires_at"],
        "string_pattern_mismatch"
      ],
      [
        "/api/v1/public/rewards",
        create({ expires_at: "2099-12-31" }),
        ["body", "expires_at"],
        "string_pattern_mismatch"
      ],
      ["/api/v1/public/rewards", create({ per_user_limit: 0 }), ["body", "per_user_limit"], "greater_than_equal"],
      ["/api/v1/public/rewards", create({ active: "yes" }), ["body", "active"], "value_error"],
      ["/api/v1/public/rewards", create({ quantity: 1 }), ["body", "quantity"], "extra_forbidden"],
      [rewardPath, patch({ pontos_necessarios: 0 }), ["body", "pontos_necessarios"], "greater_than_equal"],
      [rewardPath, patch({ pontos_necessarios: null }), ["body", "pontos_necessarios"], "number_type"],
      [rewardPath, patch({ expires_at: past }), ["body", "expires_at"], "value_error"],
      [rewardPath, patch({ stock: -3 }), ["body", "stock"], "greater_than_equal"],
      [rewardPath, patch({ active: null }), ["body", "active"], "value_error"],
      [rewardPath, patch({ product_id: product.id }), ["body", "product_id"], "extra_forbidden"],
      ["/api/v1/public/rewards/not-a-uuid", patch({ stock: 1 }), ["path", "reward_id"], "uuid_parsing"],
      ["/api/v1/public/rewards/not-a-uuid", {}, ["path", "reward_id"], "uuid_parsing"],
      ["/api/v1/public/rewards?product_id=abc", {}, ["query", "product_id"], "uuid_parsing"],
      ["/api/v1/public/rewards?include_unavailable=maybe", {}, ["query", "include_unavailable"], "value_error"]
    ]
    for (const [path, options, loc, type] of cases) {
      const res = await call(server, path, { key: tenant.key, ...options })
      expect(res.status, `${path} ${JSON.stringify(options)}`).toBe(422)
      expect(res.body.detail, `${path} ${JSON.stringify(options)}`).toContainEqual({
        loc,
        msg: expect.any(String),
        type
      })
    }
    const list = await call(server, "/api/v1/public/rewards?include_unavailable=true", { key: tenant.key })
    expect(list.body).toEqual([reward])
  })
})
