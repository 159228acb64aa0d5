import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  balanceStorm,
  call,
  checkoutStorm,
  claimStorm,
  createProduct,
  createProgram,
  createReward,
  createSharedDatabase,
  createTenant,
  endUserEnv,
  expectBooksBalance,
  issueCard,
  memberOf,
  realServerUrl,
  stampCard,
  startServer,
  stockStorm,
  type Member,
  type StormContext,
  type TestDatabase,
  type TestServer,
  expectRefusal,
  useEndUserServer,
  validateStorm
} from "./support/index.js"

const { server, tenant, sink, member } = await useEndUserServer()
const reward = async (body: Record<string, unknown> = {}) => {
  const product = await createProduct(server, tenant, { name: `Prêmio ${Math.random().toString(36).slice(2, 6)}` })
  return createReward(server, tenant, { product_id: product.id, pontos_necessarios: 100, ...body })
}
const redeem = (who: Member, rewardId: string, body: Record<string, unknown> = {}) =>
  call(server, `/api/v1/rewards/${rewardId}/redeem`, { headers: who.auth, body })
const validate = (code: string) =>
  call(server, "/api/v1/public/redemptions/validate", { key: tenant.key, body: { code } })
const balanceOf = async (who: Member) =>
  (await call(server, `/api/v1/public/points/${who.clientId}`, { key: tenant.key })).body.balance as number

/** The client's timeline: every points move has its event, so their sum is the balance. */
const timelineSum = async (who: Member) => {
  const res = await call(server, `/api/v1/public/clients/${who.clientId}/timeline?per_page=100`, { key: tenant.key })
  expect(res.status).toBe(200)
  return (res.body.data as Array<{ points: number }>).reduce((sum, event) => sum + event.points, 0)
}

describe("rewards for a user", () => {
  it("lists the store's rewards with the user's points and whether each can be redeemed", async () => {
    const ana = await member(150)
    const cheap = await reward({ pontos_necessarios: 100 })
    const dear = await reward({ pontos_necessarios: 500 })
    const res = await call(server, `/api/v1/rewards?empresa_id=${tenant.empresa.id}`, { headers: ana.auth })
    expect(res.status).toBe(200)
    expect(res.body.user_summary).toEqual({ total_points: 150, empresa_id: tenant.empresa.id })
    const byUid = new Map(res.body.rewards.map((r: any) => [r.uid, r]))
    expect(byUid.get(cheap.id)).toMatchObject({ can_redeem: true, user_points: 150, pontos_necessarios: 100 })
    expect(byUid.get(dear.id)).toMatchObject({ can_redeem: false, user_points: 150 })
    expect(byUid.get(cheap.id)).toMatchObject({
      empresa: { id: tenant.empresa.id },
      product: { uid: expect.any(String) }
    })
  })

  it("needs a bearer token", async () => {
    const res = await call(server, `/api/v1/rewards?empresa_id=${tenant.empresa.id}`)
    expect(res.status).toBe(401)
  })
})

describe("redeem refusals", () => {
  it("refuses each failed validation with its own code and changes nothing", async () => {
    const ana = await member(250)
    const unknown = await redeem(ana, "00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(404)

    const inactive = await reward()
    await call(server, `/api/v1/public/rewards/${inactive.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { active: false }
    })
    expectRefusal(await redeem(ana, inactive.id), "REWARD_INACTIVE")

    const soldOut = await reward({ stock: 1 })
    expectRefusal(await redeem(ana, soldOut.id, { quantity: 2 }), "OUT_OF_STOCK")

    const dear = await reward({ pontos_necessarios: 1000 })
    expectRefusal(await redeem(ana, dear.id), "INSUFFICIENT_POINTS")

    const once = await reward({ per_user_limit: 1 })
    expect((await redeem(ana, once.id)).status).toBe(201)
    expectRefusal(await redeem(ana, once.id), "REDEMPTION_LIMIT_REACHED")

    const soon = await reward({ expires_at: new Date(Date.now() + 1500).toISOString() })
    await new Promise((resolve) => setTimeout(resolve, 1700))
    expectRefusal(await redeem(ana, soon.id), "REWARD_EXPIRED")

    // Only the one redemption that passed spent anything; the limit's refusal rolled back its debit.
    expect(await balanceOf(ana)).toBe(150)
    expect(await timelineSum(ana)).toBe(150)
  })
})

describe("redemption lifecycle", () => {
  it("redeems, serves the QR code, validates once and refuses a second validation", async () => {
    const ana = await member(300)
    const r = await reward({ stock: 5 })
    const res = await redeem(ana, r.id, { quantity: 2, notes: "sem açúcar" })
    expect(res.status).toBe(201)
    const { redemption, updated_balance } = res.body
    expect(updated_balance).toEqual({ points_before: 300, points_after: 100, points_spent: 200 })
    expect(redemption).toMatchObject({ status: "pending", reward_uid: r.id, quantity: 2, points_spent: 200 })
    expect(redemption.code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/)
    const days = (Date.parse(redemption.expires_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThan(7.1)

    const qr = await call(server, new URL(redemption.qr_code_url, server.url).pathname)
    expect(qr.status).toBe(200)
    expect(qr.headers.get("content-type")).toBe("image/svg+xml")
    expect(String(qr.body)).toContain("<svg")

    const ok = await validate(redemption.code.toLowerCase())
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ status: "validated", validated_at: expect.any(String) })
    expectRefusal(await validate(redemption.code), "REDEMPTION_VALIDATED")
    expectRefusal(
      await call(server, `/api/v1/redemptions/${redemption.id}/cancel`, { headers: ana.auth, body: {} }),
      "REDEMPTION_VALIDATED"
    )
    const listed = await call(server, "/api/v1/redemptions?status=validated", { headers: ana.auth })
    expect(listed.body.redemptions.map((x: any) => x.id)).toEqual([redemption.id])
    const stock = await call(server, `/api/v1/public/rewards/${r.id}`, { key: tenant.key })
    expect(stock.body.stock).toBe(3)
  })

  it("lets staff signed in to the app validate a code; a user without a role is refused", async () => {
    const ana = await member(200)
    const { redemption } = (await redeem(ana, (await reward()).id)).body
    const cashier = await member(0)
    const bystander = await member(0)
    const invited = await call(server, "/api/v1/public/team", {
      key: tenant.key,
      body: { email: cashier.user.email, role: "empresa_operator" }
    })
    expect(invited.status, JSON.stringify(invited.body)).toBe(201)
    const staffValidate = (who: Member, code: string) =>
      call(server, "/api/v1/admin/redemptions/validate", { headers: who.auth, body: { code } })

    const refused = await staffValidate(bystander, redemption.code)
    expect(refused.status).toBe(403)
    expect(refused.body.detail).toMatch(/empresa_operator/)
    expect((await call(server, "/api/v1/admin/redemptions/validate", { body: { code: redemption.code } })).status).toBe(
      401
    )
    const ok = await staffValidate(cashier, redemption.code)
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body).toMatchObject({ id: redemption.id, status: "validated" })
    expectRefusal(await staffValidate(cashier, redemption.code), "REDEMPTION_VALIDATED")
    expect((await staffValidate(cashier, "ZZZZZZZZ")).status).toBe(404)
  })

  it("cancels a pending redemption: points, stock and cashback come back; another user's is a 404", async () => {
    const ana = await member(300)
    const bia = await member(0)
    const r = await reward({ stock: 2, cashback_value: 2.5 })
    const { redemption } = (await redeem(ana, r.id)).body
    expect(await balanceOf(ana)).toBe(200)

    const stranger = await call(server, `/api/v1/redemptions/${redemption.id}/cancel`, { headers: bia.auth, body: {} })
    expect(stranger.status).toBe(404)
    // The refusal names the redemption asked for, not the parameter's name.
    expect(stranger.body).toMatchObject({ detail: `Redemption ${redemption.id} not found`, code: "NOT_FOUND" })

    const cancelled = await call(server, `/api/v1/redemptions/${redemption.id}/cancel`, { headers: ana.auth, body: {} })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.status).toBe("cancelled")
    expect(await balanceOf(ana)).toBe(300)
    expect(await timelineSum(ana)).toBe(300)
    expect((await call(server, `/api/v1/public/rewards/${r.id}`, { key: tenant.key })).body.stock).toBe(2)
    expectRefusal(
      await call(server, `/api/v1/redemptions/${redemption.id}/cancel`, { headers: ana.auth, body: {} }),
      "REDEMPTION_CANCELLED"
    )
    expectRefusal(await validate(redemption.code), "REDEMPTION_CANCELLED")
  })

  it("lets a store admin cancel through the company API, and hides other stores' codes", async () => {
    const ana = await member(100)
    const r = await reward()
    const { redemption } = (await redeem(ana, r.id)).body
    const res = await call(server, `/api/v1/public/redemptions/${redemption.id}/cancel`, { key: tenant.key, body: {} })
    expect(res.status).toBe(200)
    expect(await balanceOf(ana)).toBe(100)
    expect((await validate("ZZZZZZZZ")).status).toBe(404)
    const unknown = crypto.randomUUID()
    const missing = await call(server, `/api/v1/public/redemptions/${unknown}/cancel`, { key: tenant.key, body: {} })
    expect(missing.body).toMatchObject({ detail: `Redemption ${unknown} not found`, code: "NOT_FOUND" })
  })

  it("records every action on the timeline with spec 2.4's reward metadata", async () => {
    const ana = await member(300)
    const r = await reward()
    const name = r.product.name as string
    const validated = (await redeem(ana, r.id)).body.redemption
    expect((await validate(validated.code)).status).toBe(200)
    const cancelled = (await redeem(ana, r.id)).body.redemption
    const cancel = await call(server, `/api/v1/redemptions/${cancelled.id}/cancel`, { headers: ana.auth, body: {} })
    expect(cancel.status).toBe(200)
    const cafe = await createProduct(server, tenant, { name: "Café", points_cost: 50 })
    const cart = await call(server, "/api/v1/cart/add", {
      headers: ana.auth,
      body: { store_id: tenant.empresa.id, product_uid: cafe.id, quantity: 1 }
    })
    const order = await call(server, "/api/v1/cart/checkout", {
      headers: ana.auth,
      body: { cart_id: cart.body.cart_id }
    })
    expect(order.status).toBe(200)
    const program = await createProgram(server, tenant, { stamps_required: 1 })
    await stampCard(server, tenant, (await issueCard(server, tenant, ana.clientId, program.id)).id)
    const claim = await call(server, "/api/v1/loyalty-cards/claim-reward", {
      headers: ana.auth,
      body: { card_id: program.id }
    })
    expect(claim.status).toBe(200)

    const res = await call(server, `/api/v1/public/clients/${ana.clientId}/timeline?per_page=100`, { key: tenant.key })
    const rewardEvents = res.body.data.filter((e: any) => e.type === "reward")
    const ofReward = (code: string, status?: string) => ({
      reward_uid: r.id,
      product_name: name,
      code,
      ...(status === undefined ? {} : { status })
    })
    expect(rewardEvents).toHaveLength(6)
    expect(rewardEvents).toEqual(
      expect.arrayContaining(
        [
          { title: `Reward redeemed: ${name}`, points: -100, metadata: ofReward(validated.code) },
          { title: `Redemption validated: ${name}`, points: 0, metadata: ofReward(validated.code, "validated") },
          { title: `Reward redeemed: ${name}`, points: -100, metadata: ofReward(cancelled.code) },
          { title: `Redemption cancelled: ${name}`, points: 100, metadata: ofReward(cancelled.code, "cancelled") },
          {
            title: `Order ${order.body.redemption_code}`,
            points: -50,
            metadata: { reward_uid: null, product_name: "1 × Café", order_id: order.body.order_id }
          },
          {
            title: "Reward claimed: Um café grátis",
            points: 0,
            metadata: { reward_uid: null, product_name: "Um café grátis", program_id: program.id }
          }
        ].map(({ metadata, ...event }) =>
          expect.objectContaining({ ...event, metadata: expect.objectContaining(metadata) })
        )
      )
    )
    await expectBooksBalance({ servers: [server], tenant, member }, [ana])
  })
})

// Expiry needs time to pass: the redemption is made on one server, then a second server on the same
// database judges deadlines eight days later (FIDELIS_CLOCK_OFFSET_SECONDS, test-only). The expiry
// event on the timeline shows the sweep persisted it (nothing else runs before the poll ends).
describe("redemption lifecycle with a moved clock", () => {
  it("redeem, pass the deadline: expired on read and after the sweep, the points stay spent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fidelis-clock-"))
    const shared = realServerUrl() === undefined ? undefined : await createSharedDatabase()
    const place = shared === undefined ? { embedded: true } : { databaseUrl: shared.url }
    const env = {
      ...endUserEnv(sink),
      FIDELIS_JWT_SECRET: "redemption-lifecycle-signing-secret",
      ...(shared === undefined ? { FIDELIS_DATA_DIR: dir } : {})
    }
    try {
      const today = await startServer({ ...place, env })
      const made = await (async () => {
        try {
          const t = await createTenant(today)
          const ana = await memberOf(today, sink, t, 300)
          const product = await createProduct(today, t, { name: "Bolo" })
          const r = await createReward(today, t, { product_id: product.id, pontos_necessarios: 100 })
          const res = await call(today, `/api/v1/rewards/${r.id}/redeem`, { headers: ana.auth, body: {} })
          expect(res.body.redemption.status).toBe("pending")
          return { t, ana, r, redemption: res.body.redemption }
        } finally {
          await today.stop()
        }
      })()
      const { t, ana, r, redemption } = made
      const later = await startServer({
        ...place,
        env: { ...env, FIDELIS_CLOCK_OFFSET_SECONDS: String(8 * 86_400), FIDELIS_HOUSEKEEPING_SECONDS: "1" }
      })
      try {
        const key = { key: t.key }
        expectRefusal(
          await call(later, "/api/v1/public/redemptions/validate", { ...key, body: { code: redemption.code } }),
          "REDEMPTION_EXPIRED"
        )
        expectRefusal(
          await call(later, `/api/v1/redemptions/${redemption.id}/cancel`, { headers: ana.auth, body: {} }),
          "REDEMPTION_EXPIRED"
        )
        const expiries = async () => {
          const res = await call(later, `/api/v1/public/clients/${ana.clientId}/timeline?per_page=100`, key)
          return res.body.data.filter((e: any) => e.metadata.status === "expired")
        }
        const deadline = Date.now() + 20_000
        while ((await expiries()).length === 0 && Date.now() < deadline) await new Promise((f) => setTimeout(f, 200))
        // Only the sweep has written so far: the refusals above read the status without persisting it.
        expect(await expiries()).toHaveLength(1)
        const listed = await call(later, "/api/v1/redemptions", { headers: ana.auth })
        expect(listed.body.redemptions).toEqual([expect.objectContaining({ id: redemption.id, status: "expired" })])
        expect(await expiries()).toEqual([
          expect.objectContaining({
            type: "reward",
            title: "Redemption expired: Bolo",
            points: 0,
            metadata: expect.objectContaining({ reward_uid: r.id, product_name: "Bolo", code: redemption.code })
          })
        ])
        expect((await call(later, `/api/v1/public/points/${ana.clientId}`, key)).body.balance).toBe(200)
        await expectBooksBalance({ servers: [later], tenant: t, member }, [ana])
      } finally {
        await later.stop()
      }
    } finally {
      await shared?.drop()
      await rm(dir, { recursive: true, force: true })
    }
  }, 240_000)
})

describe("storms", () => {
  const ctx = { servers: [server], tenant, member }
  it("50 parallel redemptions of a reward with stock 5 give exactly 5 pending and 45 refusals", () => stockStorm(ctx))
  it("one user's 30 parallel redemptions succeed exactly as often as the balance allows (3)", () => balanceStorm(ctx))
  it("20 parallel validations of one code validate it once", () => validateStorm(ctx))
  it("20 parallel claims of one completed stamp card give one code", () => claimStorm(ctx))
})

// Each storm again, its requests alternating between two processes: the guarantees must hold in the
// database (locks, conditional updates), not in one process's memory. The embedded database serves
// one process, so this needs a real server.
describe.runIf(realServerUrl() !== undefined)("storms across two server processes on one database", () => {
  let pair: { a: TestServer; b: TestServer; database: TestDatabase; ctx: StormContext } | undefined
  beforeAll(async () => {
    const database = await createSharedDatabase()
    // One signing secret, so a token one process issued verifies on the other from the start.
    const env = { ...endUserEnv(sink), FIDELIS_JWT_SECRET: "storms-across-processes-signing-secret" }
    const [a, b] = await Promise.all([0, 1].map(() => startServer({ databaseUrl: database.url, env })))
    const t = await createTenant(a!)
    const ctx = { servers: [a!, b!], tenant: t, member: (points: number) => memberOf(a!, sink, t, points) }
    pair = { a: a!, b: b!, database, ctx }
  }, 240_000)
  afterAll(async () => {
    await Promise.all([pair?.a.stop(), pair?.b.stop()])
    await pair?.database.drop()
  })
  const ctx = () => pair!.ctx
  it("50 redemptions of stock 5: exactly 5", () => stockStorm(ctx()))
  it("30 redemptions by one user whose balance covers 3: exactly 3", () => balanceStorm(ctx()))
  it("20 checkouts of one cart: one order", () => checkoutStorm(ctx()))
  it("20 claims of one completed card: one reward", () => claimStorm(ctx()))
  it("20 validations of one code: once", () => validateStorm(ctx()))
})

describe("stamp cards for users", () => {
  it("shows definitions and progress, and refuses a claim before the card is full", async () => {
    const ana = await member(0)
    const program = await createProgram(server, tenant, { stamps_required: 4 })
    const card = await issueCard(server, tenant, ana.clientId, program.id)
    await stampCard(server, tenant, card.id, { quantity: 3 })

    const defs = await call(server, `/api/v1/loyalty-cards/empresa/${tenant.empresa.id}`, { headers: ana.auth })
    expect(defs.body.cards).toContainEqual(expect.objectContaining({ id: program.id, stamps_required: 4 }))
    const progress = await call(server, `/api/v1/loyalty-cards/progress/${program.id}`, { headers: ana.auth })
    expect(progress.body).toMatchObject({ stamps_collected: 3, progress_percentage: 75, reward_available: false })
    const early = await call(server, "/api/v1/loyalty-cards/claim-reward", {
      headers: ana.auth,
      body: { card_id: program.id }
    })
    expectRefusal(early, "CARD_NOT_COMPLETED")
  })
})
