import { expect } from "vitest"
import { expectRefusal, type Member } from "./accounts.js"
import { createProduct, createProgram, createReward, issueCard, stampCard } from "./fixtures.js"
import { call, type Tenant } from "./http.js"
import type { TestServer } from "./server.js"

/**
 * Issue 15's storms, counted exactly. `servers` take the requests in turn, so the same storm runs on
 * one process or split across two processes sharing one PostgreSQL database.
 */
export interface StormContext {
  readonly servers: ReadonlyArray<TestServer>
  readonly tenant: Tenant
  readonly member: (points: number) => Promise<Member>
}

const on = (ctx: StormContext, i: number) => ctx.servers[i % ctx.servers.length]!
const times = <T>(n: number, request: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => request(i)))

const redeem = (ctx: StormContext, i: number, who: Member, rewardId: string) =>
  call(on(ctx, i), `/api/v1/rewards/${rewardId}/redeem`, { headers: who.auth, body: {} })
const validate = (ctx: StormContext, i: number, code: string) =>
  call(on(ctx, i), "/api/v1/public/redemptions/validate", { key: ctx.tenant.key, body: { code } })
const redemptionsOf = async (ctx: StormContext, who: Member, query = "") => {
  const res = await call(on(ctx, 0), `/api/v1/redemptions?empresa_id=${ctx.tenant.empresa.id}${query}`, {
    headers: who.auth
  })
  expect(res.status).toBe(200)
  return res.body.redemptions as Array<{ kind: string; status: string }>
}
const reward = async (ctx: StormContext, body: Record<string, unknown>) => {
  const product = await createProduct(on(ctx, 0), ctx.tenant, { name: `Prêmio ${Math.random().toString(36).slice(2)}` })
  return createReward(on(ctx, 0), ctx.tenant, { product_id: product.id, pontos_necessarios: 100, ...body })
}

/** Exactly `count` answers have `status`; every other one is a refusal with one of `codes`. */
const expectCounted = (
  results: ReadonlyArray<{ status: number; body: any }>,
  status: number,
  count: number,
  ...codes: string[]
) => {
  expect(results.filter((res) => res.status === status)).toHaveLength(count)
  for (const res of results.filter((x) => x.status !== status)) {
    expect(codes).toContain(res.body.code)
    expectRefusal(res, res.body.code)
  }
}

/** Through the company API: no balance is negative, and each client's ledger (its timeline) sums to its balance. */
export const expectBooksBalance = async (ctx: StormContext, members: ReadonlyArray<Member>) => {
  for (const who of members) {
    const balance = await call(on(ctx, 0), `/api/v1/public/points/${who.clientId}`, { key: ctx.tenant.key })
    const timeline = await call(on(ctx, 1), `/api/v1/public/clients/${who.clientId}/timeline?per_page=100`, {
      key: ctx.tenant.key
    })
    // One page holds the whole ledger, or the sum would miss events.
    expect(timeline.body.total).toBeLessThanOrEqual(100)
    const sum = (timeline.body.data as Array<{ points: number }>).reduce((total, event) => total + event.points, 0)
    expect(balance.body.balance).toBeGreaterThanOrEqual(0)
    expect(sum).toBe(balance.body.balance)
  }
}

/** 50 parallel redemptions of a reward with stock 5, by ten users who can each afford all five of theirs. */
export const stockStorm = async (ctx: StormContext) => {
  const users = await Promise.all(Array.from({ length: 10 }, () => ctx.member(1000)))
  const r = await reward(ctx, { stock: 5 })
  // Each user's five requests go to alternating processes.
  expectCounted(await times(50, (i) => redeem(ctx, i, users[Math.floor(i / 5)]!, r.id)), 201, 5, "OUT_OF_STOCK")
  const pending = await Promise.all(users.map((u) => redemptionsOf(ctx, u, "&status=pending")))
  expect(pending.flat()).toHaveLength(5)
  expect((await call(on(ctx, 1), `/api/v1/public/rewards/${r.id}`, { key: ctx.tenant.key })).body.stock).toBe(0)
  await expectBooksBalance(ctx, users)
}

/** 30 parallel redemptions by one user whose balance covers 3. */
export const balanceStorm = async (ctx: StormContext) => {
  const ana = await ctx.member(300)
  const r = await reward(ctx, {})
  expectCounted(await times(30, (i) => redeem(ctx, i, ana, r.id)), 201, 3, "INSUFFICIENT_POINTS")
  expect(await redemptionsOf(ctx, ana)).toHaveLength(3)
  await expectBooksBalance(ctx, [ana])
}

/** 20 parallel checkouts of one cart: one order. */
export const checkoutStorm = async (ctx: StormContext) => {
  const ana = await ctx.member(1000)
  const item = await createProduct(on(ctx, 0), ctx.tenant, { name: "Pão", points_cost: 100 })
  const added = await call(on(ctx, 0), "/api/v1/cart/add", {
    headers: ana.auth,
    body: { store_id: ctx.tenant.empresa.id, product_uid: item.id, quantity: 3 }
  })
  const { cart_id } = added.body
  const results = await times(20, (i) =>
    call(on(ctx, i), "/api/v1/cart/checkout", { headers: ana.auth, body: { cart_id } })
  )
  expectCounted(results, 200, 1, "CART_CHECKED_OUT")
  expect((await redemptionsOf(ctx, ana)).map((r) => r.kind)).toEqual(["order"])
  expect((await call(on(ctx, 0), `/api/v1/public/points/${ana.clientId}`, { key: ctx.tenant.key })).body.balance).toBe(
    700
  )
  await expectBooksBalance(ctx, [ana])
}

/** 20 parallel claims of one completed stamp card: one reward, and the next cycle open. */
export const claimStorm = async (ctx: StormContext) => {
  const ana = await ctx.member(0)
  const program = await createProgram(on(ctx, 0), ctx.tenant, { stamps_required: 4 })
  const card = await issueCard(on(ctx, 0), ctx.tenant, ana.clientId, program.id)
  await stampCard(on(ctx, 0), ctx.tenant, card.id, { quantity: 4 })
  const claims = await times(20, (i) =>
    call(on(ctx, i), "/api/v1/loyalty-cards/claim-reward", { headers: ana.auth, body: { card_id: program.id } })
  )
  // A claim that read the card before the winner took it finds it claimed; a later one finds the next, empty cycle.
  expectCounted(claims, 200, 1, "CARD_ALREADY_CLAIMED", "CARD_NOT_COMPLETED")
  const won = claims.find((res) => res.status === 200)!
  expect(won.body).toMatchObject({ success: true, reward: "Um café grátis", redemption_code: expect.any(String) })
  expect((await redemptionsOf(ctx, ana)).map((r) => r.kind)).toEqual(["card"])
  const after = await call(on(ctx, 1), `/api/v1/loyalty-cards/progress/${program.id}`, { headers: ana.auth })
  expect(after.body).toMatchObject({ stamps_collected: 0, reward_available: false })
  expect((await validate(ctx, 0, won.body.redemption_code)).status).toBe(200)
  await expectBooksBalance(ctx, [ana])
}

/** 20 parallel validations of one code: validated once, one timeline event. */
export const validateStorm = async (ctx: StormContext) => {
  const ana = await ctx.member(100)
  const { redemption } = (await redeem(ctx, 0, ana, (await reward(ctx, {})).id)).body
  expectCounted(await times(20, (i) => validate(ctx, i, redemption.code)), 200, 1, "REDEMPTION_VALIDATED")
  const timeline = await call(on(ctx, 0), `/api/v1/public/clients/${ana.clientId}/timeline?per_page=100`, {
    key: ctx.tenant.key
  })
  const validated = timeline.body.data.filter((e: any) => e.metadata?.status === "validated")
  expect(validated).toHaveLength(1)
  await expectBooksBalance(ctx, [ana])
}
