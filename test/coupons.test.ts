import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  balanceOf,
  call,
  createClient,
  createProduct,
  creditPoints,
  createSharedDatabase,
  createTenant,
  startServer,
  timelineOf,
  updateSettings,
  useServer,
  type Tenant,
  type TestDatabase,
  type TestServer,
  problem
} from "./support/index.js"

const server = useServer()

const UID = /^[2-9A-HJKMNP-Z]{8}$/
const UUID = /^[0-9a-f-]{36}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The coupon calls under test, against one server; each answers the whole response. */
const apiOf = (target: TestServer) => ({
  stockOf: async (tenant: Tenant, productId: string) =>
    (await call(target, `/api/v1/public/products/${productId}`, { key: tenant.key })).body.stock as number | null,
  generate: (tenant: Tenant, body: Record<string, unknown>, idempotencyKey?: string) =>
    call(target, "/api/v1/public/coupons/generate", {
      key: tenant.key,
      body,
      ...(idempotencyKey === undefined ? {} : { headers: { "x-idempotency-key": idempotencyKey } })
    }),
  get: (tenant: Tenant, uid: string) => call(target, `/api/v1/public/coupons/${uid}`, { key: tenant.key }),
  list: (tenant: Tenant, query = "") => call(target, `/api/v1/public/coupons${query}`, { key: tenant.key }),
  // The adapter wants a JSON content type on every PATCH and POST, even without fields.
  use: (tenant: Tenant, uid: string) =>
    call(target, `/api/v1/public/coupons/${uid}/use`, { key: tenant.key, method: "PATCH", body: {} }),
  cancel: (tenant: Tenant, uid: string) =>
    call(target, `/api/v1/public/coupons/${uid}/cancel`, { key: tenant.key, body: {} })
})

const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000

describe("generate_coupon", () => {
  it("turns points into a coupon worth points x point_value (default 0.01 BRL, 30 days)", async () => {
    const { generate, get } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 500)
    const res = await generate(tenant, { client_id: client.id, points: 250 })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      uid: expect.stringMatching(UID),
      status: "active",
      kind: "points",
      valor: 2.5,
      points_spent: 250,
      client_id: client.id,
      product_id: null,
      product_name: null,
      expires_at: expect.stringMatching(ISO),
      used_at: null,
      cancelled_at: null,
      created_at: expect.stringMatching(ISO)
    })
    expect(days(res.body.created_at, res.body.expires_at)).toBeCloseTo(30, 5)
    expect(await balanceOf(server, tenant, client.id)).toBe(250)

    // The code is case-insensitive.
    const fetched = await get(tenant, res.body.uid.toLowerCase())
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(res.body)

    const [event] = (await timelineOf(server, tenant, client.id)).data
    expect(event).toMatchObject({
      type: "reward",
      title: `Coupon ${res.body.uid}`,
      description: "Worth 2.50 BRL",
      points: -250,
      metadata: {
        coupon_uid: res.body.uid,
        coupon_id: res.body.id,
        kind: "points",
        valor: 2.5,
        transaction_id: expect.any(String)
      }
    })
  })

  it("follows the empresa's point_value and coupon_validity_days", async () => {
    const { generate } = apiOf(server)
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { point_value: 0.05, coupon_validity_days: 7 })
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 333)
    const res = await generate(tenant, { client_id: client.id, points: 333 })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ valor: 16.65, points_spent: 333 })
    expect(days(res.body.created_at, res.body.expires_at)).toBeCloseTo(7, 5)
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })

  it("turns points into a coupon for one unit of a product, taking it from stock", async () => {
    const { stockOf, generate } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 300)
    const product = await createProduct(server, tenant, { price: 8.5, stock: 2 })
    const res = await generate(tenant, { client_id: client.id, product_id: product.id })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      uid: expect.stringMatching(UID),
      status: "active",
      kind: "product",
      valor: 8.5,
      points_spent: 120,
      client_id: client.id,
      product_id: product.id,
      product_name: "Café expresso",
      expires_at: expect.stringMatching(ISO),
      used_at: null,
      cancelled_at: null,
      created_at: expect.stringMatching(ISO)
    })
    expect(await balanceOf(server, tenant, client.id)).toBe(180)
    expect(await stockOf(tenant, product.id)).toBe(1)
    const [event] = (await timelineOf(server, tenant, client.id)).data
    expect(event).toMatchObject({
      type: "reward",
      title: `Coupon ${res.body.uid}`,
      description: "Café expresso",
      points: -120,
      metadata: { coupon_uid: res.body.uid, product_id: product.id, product_name: "Café expresso", valor: 8.5 }
    })

    // Without a price the coupon has no money value; unlimited stock stays unlimited.
    const free = await createProduct(server, tenant, { name: "Brinde", points_cost: 10 })
    const gift = await generate(tenant, { client_id: client.id, product_id: free.id })
    expect(gift.body).toMatchObject({ kind: "product", valor: null, points_spent: 10, product_name: "Brinde" })
    expect(await stockOf(tenant, free.id)).toBeNull()
  })

  it("refuses what the rules forbid with 409 and changes nothing", async () => {
    const { stockOf, generate, list } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 100)

    const poor = await generate(tenant, { client_id: client.id, points: 101 })
    expect(poor.status).toBe(409)
    expect(poor.body.detail).toEqual({ code: "INSUFFICIENT_POINTS", message: expect.stringMatching(/100 points/) })

    const expensive = await createProduct(server, tenant, { points_cost: 150, stock: 5 })
    // Keyed: the coupon row and the unit of stock it took are undone with the refusal, which the key does not keep.
    const short = await generate(tenant, { client_id: client.id, product_id: expensive.id }, "short-1")
    expect(short.status).toBe(409)
    expect(short.body.detail.code).toBe("INSUFFICIENT_POINTS")
    expect(await stockOf(tenant, expensive.id)).toBe(5)

    const soldOut = await createProduct(server, tenant, { points_cost: 10, stock: 0 })
    const none = await generate(tenant, { client_id: client.id, product_id: soldOut.id })
    expect(none.status).toBe(409)
    expect(none.body.detail).toEqual({ code: "OUT_OF_STOCK", message: expect.any(String) })

    const inactive = await createProduct(server, tenant, { points_cost: 10, active: false })
    const off = await generate(tenant, { client_id: client.id, product_id: inactive.id })
    expect(off.status).toBe(409)
    expect(off.body.detail).toEqual({ code: "PRODUCT_INACTIVE", message: expect.any(String) })

    expect(await balanceOf(server, tenant, client.id)).toBe(100)
    expect((await list(tenant)).body.total).toBe(0)
    expect((await timelineOf(server, tenant, client.id)).data.map((e) => e.type)).toEqual(["purchase"])

    // With the points, the same key runs the request afresh: the refusal was not recorded under it.
    await creditPoints(server, tenant, client.id, 50)
    const retried = await generate(tenant, { client_id: client.id, product_id: expensive.id }, "short-1")
    expect(retried.status).toBe(201)
    expect(retried.headers.get("idempotent-replayed")).toBeNull()
    expect(await stockOf(tenant, expensive.id)).toBe(4)
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })

  it("refuses points worth less than one centavo with 422", async () => {
    const { generate } = apiOf(server)
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { point_value: 0.001 })
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 10)
    const res = await generate(tenant, { client_id: client.id, points: 4 })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ["body", "points"], msg: expect.stringMatching(/less than 0.01 BRL/), type: "greater_than_equal" }
    ])
    expect(await balanceOf(server, tenant, client.id)).toBe(10)
    expect((await generate(tenant, { client_id: client.id, points: 10 })).body.valor).toBe(0.01)
  })

  it("refuses points worth more than a coupon can hold with 422, whatever the balance", async () => {
    const { generate } = apiOf(server)
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { point_value: 10 })
    const client = await createClient(server, tenant)
    const res = await generate(tenant, { client_id: client.id, points: 1_000_000_000 })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ["body", "points"], msg: expect.stringMatching(/worth more/), type: "less_than_equal" }
    ])
  })

  it("names each invalid field with its location (422) and changes nothing", async () => {
    const { stockOf, generate, list } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 1000)
    const product = await createProduct(server, tenant, { stock: 3 })
    const cases: Array<[Record<string, unknown>, unknown[], string]> = [
      [{ client_id: client.id, points: 10, product_id: product.id }, ["body", "product_id"], "value_error"],
      [{ client_id: client.id }, ["body", "points"], "missing"],
      [{ client_id: client.id, points: 0 }, ["body", "points"], "greater_than_equal"],
      [{ client_id: client.id, points: -5 }, ["body", "points"], "greater_than_equal"],
      [{ client_id: client.id, points: 1.5 }, ["body", "points"], "int_type"],
      [{ client_id: "abc", points: 10 }, ["body", "client_id"], "uuid_parsing"],
      [{ points: 10 }, ["body", "client_id"], "missing"],
      [{ client_id: client.id, product_id: "nope" }, ["body", "product_id"], "uuid_parsing"],
      [{ client_id: client.id, points: 10, discount: 5 }, ["body", "discount"], "extra_forbidden"]
    ]
    for (const [body, loc, type] of cases) {
      const res = await generate(tenant, body)
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.detail, JSON.stringify(body)).toContainEqual({ loc, msg: expect.any(String), type })
    }
    const both = await generate(tenant, { client_id: client.id, points: 10, product_id: product.id })
    expect(both.body.detail).toEqual([
      { loc: ["body", "product_id"], msg: "Send either points or product_id, not both", type: "value_error" }
    ])

    expect(await balanceOf(server, tenant, client.id)).toBe(1000)
    expect(await stockOf(tenant, product.id)).toBe(3)
    expect((await list(tenant)).body.total).toBe(0)
  })
})

describe("use_coupon", () => {
  it("marks an active coupon used, and a repeat returns it as it is", async () => {
    const { generate, get, use } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 100)
    const coupon = (await generate(tenant, { client_id: client.id, points: 100 })).body

    const used = await use(tenant, coupon.uid.toLowerCase())
    expect(used.status).toBe(200)
    expect(used.body).toEqual({ ...coupon, status: "used", used_at: expect.stringMatching(ISO) })
    const again = await use(tenant, coupon.uid)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(used.body)
    expect((await get(tenant, coupon.uid)).body).toEqual(used.body)

    // One event for the use (no points move), none for the repeat.
    const events = (await timelineOf(server, tenant, client.id)).data
    expect(events.map((e) => [e.title, e.points])).toEqual([
      [`Coupon ${coupon.uid} used`, 0],
      [`Coupon ${coupon.uid}`, -100],
      ["+100 points", 100]
    ])
    expect(events[0]).toMatchObject({ type: "reward", metadata: { coupon_uid: coupon.uid, valor: 1 } })
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })

  it("refuses a cancelled coupon (409 COUPON_CANCELLED)", async () => {
    const { generate, use, cancel } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 10)
    const coupon = (await generate(tenant, { client_id: client.id, points: 10 })).body
    expect((await cancel(tenant, coupon.uid)).status).toBe(200)
    const refused = await use(tenant, coupon.uid)
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toEqual({ code: "COUPON_CANCELLED", message: expect.any(String) })
    expect(await balanceOf(server, tenant, client.id)).toBe(10)
  })
})

/*
 * Expiry needs a coupon past its deadline, and coupon_validity_days is at least a day, so these
 * tests move the deadline in the database. That needs a database this file can reach: a server of
 * their own on a shared one (the other tests keep the default embedded database).
 */
describe("expiry", () => {
  let database: TestDatabase
  let expiring: TestServer
  let db: pg.Client

  beforeAll(async () => {
    database = await createSharedDatabase()
    expiring = await startServer({ databaseUrl: database.url })
    db = new pg.Client({ connectionString: database.url })
    await db.connect()
  })
  afterAll(async () => {
    await db?.end()
    await expiring?.stop()
    await database?.drop()
  })

  const expire = async (uid: string) => {
    await db.query("UPDATE coupons SET expires_at = now() - interval '1 minute' WHERE uid = $1", [uid])
  }

  it("refuses an expired coupon (409 COUPON_EXPIRED); reads report it expired; points stay spent", async () => {
    const { generate, get, list, use, cancel } = apiOf(expiring)
    const tenant = await createTenant(expiring)
    const client = await createClient(expiring, tenant)
    await creditPoints(expiring, tenant, client.id, 100)
    const coupon = (await generate(tenant, { client_id: client.id, points: 60 })).body
    await expire(coupon.uid)

    const listed = await list(tenant, "?status=active")
    expect(listed.body.total).toBe(0)
    const fetched = await get(tenant, coupon.uid)
    expect(fetched.body).toMatchObject({ uid: coupon.uid, status: "expired", used_at: null })
    const { rows } = await db.query("SELECT status FROM coupons WHERE uid = $1", [coupon.uid])
    expect(rows).toEqual([{ status: "expired" }])

    const refused = await use(tenant, coupon.uid)
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toEqual({ code: "COUPON_EXPIRED", message: expect.stringMatching(/expired/) })
    const notCancelled = await cancel(tenant, coupon.uid)
    expect(notCancelled.status).toBe(409)
    expect(notCancelled.body.detail.code).toBe("COUPON_EXPIRED")
    expect(await balanceOf(expiring, tenant, client.id)).toBe(40)
  })

  it("reports an overdue coupon expired even before anything persisted it, and refuses to use it", async () => {
    const { generate, list, use } = apiOf(expiring)
    const tenant = await createTenant(expiring)
    const client = await createClient(expiring, tenant)
    await creditPoints(expiring, tenant, client.id, 10)
    const coupon = (await generate(tenant, { client_id: client.id, points: 10 })).body
    await expire(coupon.uid)
    const refused = await use(tenant, coupon.uid)
    expect(refused.status).toBe(409)
    expect(refused.body.detail.code).toBe("COUPON_EXPIRED")
    const listed = await list(tenant, "?status=expired")
    expect(listed.body.data.map((c: { uid: string }) => c.uid)).toEqual([coupon.uid])
  })
})

describe("cancel and list coupons (management)", () => {
  it("cancels an active coupon, refunding its points and returning the unit to stock", async () => {
    const { stockOf, generate, use, cancel } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 200)
    const product = await createProduct(server, tenant, { stock: 1, price: 8.5 })
    const coupon = (await generate(tenant, { client_id: client.id, product_id: product.id })).body
    expect(await stockOf(tenant, product.id)).toBe(0)
    expect(await balanceOf(server, tenant, client.id)).toBe(80)

    const cancelled = await cancel(tenant, coupon.uid)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toEqual({ ...coupon, status: "cancelled", cancelled_at: expect.stringMatching(ISO) })
    expect(await balanceOf(server, tenant, client.id)).toBe(200)
    expect(await stockOf(tenant, product.id)).toBe(1)
    const [event] = (await timelineOf(server, tenant, client.id)).data
    expect(event).toMatchObject({
      type: "reward",
      title: `Coupon ${coupon.uid} cancelled`,
      points: 120,
      metadata: { coupon_uid: coupon.uid, product_name: "Café expresso", transaction_id: expect.any(String) }
    })

    // A repeat returns it as it is and refunds nothing more.
    const again = await cancel(tenant, coupon.uid)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(cancelled.body)
    expect(await balanceOf(server, tenant, client.id)).toBe(200)
    expect(await stockOf(tenant, product.id)).toBe(1)

    const other = (await generate(tenant, { client_id: client.id, points: 50 })).body
    await use(tenant, other.uid)
    const refused = await cancel(tenant, other.uid)
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toEqual({ code: "COUPON_USED", message: expect.any(String) })
    expect(await balanceOf(server, tenant, client.id)).toBe(150)
  })

  it("lists coupons newest first, paginated, filtered by client and status", async () => {
    const { generate, list, use } = apiOf(server)
    const tenant = await createTenant(server)
    const ana = await createClient(server, tenant, { nome: "Ana" })
    const bia = await createClient(server, tenant, { nome: "Bia" })
    await creditPoints(server, tenant, ana.id, 100)
    await creditPoints(server, tenant, bia.id, 100)
    const a1 = (await generate(tenant, { client_id: ana.id, points: 10 })).body
    const a2 = (await generate(tenant, { client_id: ana.id, points: 20 })).body
    const b1 = (await generate(tenant, { client_id: bia.id, points: 30 })).body
    await use(tenant, a1.uid)

    const all = await list(tenant)
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ total: 3, page: 1, pages: 1, per_page: 20 })
    expect(all.body.data.map((c: { uid: string }) => c.uid)).toEqual([b1.uid, a2.uid, a1.uid])
    expect(all.body.data[2]).toMatchObject({ status: "used", client_id: ana.id })

    const anas = await list(tenant, `?client_id=${ana.id}`)
    expect(anas.body.data.map((c: { uid: string }) => c.uid)).toEqual([a2.uid, a1.uid])
    const active = await list(tenant, `?client_id=${ana.id}&status=active`)
    expect(active.body.data.map((c: { uid: string }) => c.uid)).toEqual([a2.uid])
    const paged = await list(tenant, "?per_page=2&page=2")
    expect(paged.body).toMatchObject({ total: 3, page: 2, pages: 2, per_page: 2 })
    expect(paged.body.data.map((c: { uid: string }) => c.uid)).toEqual([a1.uid])

    for (const [query, loc] of [
      ["status=open", ["query", "status"]],
      ["client_id=abc", ["query", "client_id"]],
      ["per_page=101", ["query", "per_page"]]
    ] as const) {
      const res = await list(tenant, `?${query}`)
      expect(res.status, query).toBe(422)
      expect(res.body.detail[0].loc).toEqual(loc)
    }
  })
})

describe("tenant isolation", () => {
  it("answers 404 for another tenant's client, product and coupon", async () => {
    const { stockOf, generate, get, use, cancel } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 500)
    const product = await createProduct(server, tenant, { stock: 5 })
    const coupon = (await generate(tenant, { client_id: client.id, points: 100 })).body

    const other = await createTenant(server)
    const otherClient = await createClient(server, other)
    await creditPoints(server, other, otherClient.id, 500)

    const foreignClient = await generate(other, { client_id: client.id, points: 10 })
    expect(foreignClient.status).toBe(404)
    expect(foreignClient.body).toEqual(problem(`Client ${client.id} not found`, "NOT_FOUND"))
    const foreignProduct = await generate(other, { client_id: otherClient.id, product_id: product.id })
    expect(foreignProduct.status).toBe(404)
    expect(foreignProduct.body).toEqual(problem(`Product ${product.id} not found`, "NOT_FOUND"))
    for (const res of [
      await call(server, `/api/v1/public/coupons/${coupon.uid}`, { key: other.key }),
      await use(other, coupon.uid),
      await cancel(other, coupon.uid)
    ]) {
      expect(res.status).toBe(404)
      expect(res.body).toEqual(problem(`Coupon ${coupon.uid} not found`, "NOT_FOUND"))
    }
    const foreignList = await call(server, `/api/v1/public/coupons?client_id=${client.id}`, { key: other.key })
    expect(foreignList.body.total).toBe(0)
    const unknown = await call(server, "/api/v1/public/coupons/ZZZZ2222", { key: tenant.key })
    expect(unknown.status).toBe(404)

    // Nothing moved on either side.
    expect(await balanceOf(server, tenant, client.id)).toBe(400)
    expect(await balanceOf(server, other, otherClient.id)).toBe(500)
    expect(await stockOf(tenant, product.id)).toBe(5)
    const own = await get(tenant, coupon.uid)
    expect(own.body.status).toBe("active")
  })
})

describe("idempotency (X-Idempotency-Key)", () => {
  it("replays the same coupon for the same key and body, debiting once; another body is 422", async () => {
    const { generate, list } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 100)
    const first = await generate(tenant, { client_id: client.id, points: 40 }, "checkout-77")
    const second = await generate(tenant, { client_id: client.id, points: 40 }, "checkout-77")
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(second.status).toBe(201)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(second.body).toEqual(first.body)
    expect(await balanceOf(server, tenant, client.id)).toBe(60)

    const reused = await generate(tenant, { client_id: client.id, points: 50 }, "checkout-77")
    expect(reused.status).toBe(422)
    expect(reused.body.detail).toEqual([
      {
        loc: ["header", "X-Idempotency-Key"],
        msg: expect.stringMatching(/different request body/),
        type: "idempotency_key_reused"
      }
    ])
    expect(await balanceOf(server, tenant, client.id)).toBe(60)
    expect((await list(tenant)).body.total).toBe(1)
  })
})

describe("concurrency", () => {
  it("30 parallel coupons against a balance for 10 create exactly 10 and never overdraw", async () => {
    const { generate, list } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 100)
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => generate(tenant, { client_id: client.id, points: 10 }, `parallel-${i}`))
    )
    const created = results.filter((r) => r.status === 201)
    const refused = results.filter((r) => r.status === 409)
    expect(created).toHaveLength(10)
    expect(refused).toHaveLength(20)
    for (const r of refused) expect(r.body.detail.code).toBe("INSUFFICIENT_POINTS")
    expect(new Set(created.map((r) => r.body.uid)).size).toBe(10)
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
    expect((await list(tenant)).body.total).toBe(10)
  })

  it("10 parallel product coupons against a stock of 3 create exactly 3", async () => {
    const { stockOf, generate } = apiOf(server)
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 1000)
    const product = await createProduct(server, tenant, { points_cost: 50, stock: 3 })
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        generate(tenant, { client_id: client.id, product_id: product.id }, `stock-${i}`)
      )
    )
    expect(results.filter((r) => r.status === 201)).toHaveLength(3)
    const refused = results.filter((r) => r.status === 409)
    expect(refused).toHaveLength(7)
    for (const r of refused) expect(r.body.detail.code).toBe("OUT_OF_STOCK")
    expect(await stockOf(tenant, product.id)).toBe(0)
    expect(await balanceOf(server, tenant, client.id)).toBe(850)
  })
})
