import { describe, expect, it } from "vitest"
import {
  call,
  claimCard,
  connectMcp,
  createClient,
  createProgram,
  createTenant,
  creditPoints,
  generateCoupon,
  issueCard,
  stampCard,
  useCoupon,
  useServer,
  type Tenant,
  problem
} from "./support/index.js"

const server = useServer()

const OVERVIEW = "/api/v1/public/metrics/overview"
const LOYALTY = "/api/v1/public/loyalty-cards/metrics"
const behaviorOf = (clientId: string) => `/api/v1/public/clients/${clientId}/behavior`

const get = (tenant: Tenant, path: string) => call(server, path, { key: tenant.key })

/** Today in the empresa's default time zone, as the daily series labels it. */
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date())

const window = {
  period_days: 30,
  from: expect.stringMatching(/T03:00:00\.000Z$/),
  to: expect.any(String),
  timezone: "America/Sao_Paulo"
}

describe("an empty tenant", () => {
  it("answers every metric with its zeros and defaults", async () => {
    const tenant = await createTenant(server)
    const overview = await get(tenant, OVERVIEW)
    expect(overview.status).toBe(200)
    expect(overview.body).toEqual({
      ...window,
      clients: { total: 0, new: 0, active: 0 },
      points: { issued: 0, spent: 0, refunded: 0, expired: 0, adjusted: 0, outstanding: 0 },
      coupons: { generated: 0, used: 0, expired: 0, cancelled: 0, active: 0, valor_generated: 0, valor_used: 0 },
      redemptions: { created: 0, validated: 0, cancelled: 0, expired: 0, pending: 0, points_spent: 0 }
    })

    const loyalty = await get(tenant, LOYALTY)
    expect(loyalty.status).toBe(200)
    expect(loyalty.body).toEqual({
      avg_days_to_complete: null,
      avg_stamps_per_active_card: 0,
      cards_active: 0,
      cards_completed: 0,
      cards_issued: 0,
      cards_near_completion: 0,
      clients_with_card: 0,
      clients_without_card: 0,
      completion_rate: 0,
      period_days: 30,
      program_id: null,
      program_name: null,
      stamps_by_period: expect.any(Array),
      top_clients: []
    })
    // The default window: 30 local days, today last, every one zero.
    expect(loyalty.body.stamps_by_period).toHaveLength(30)
    expect(loyalty.body.stamps_by_period.at(-1)).toEqual({ period: today(), stamps: 0, completions: 0 })
    expect(
      loyalty.body.stamps_by_period.every(
        (p: { stamps: number; completions: number }) => p.stamps + p.completions === 0
      )
    ).toBe(true)

    const client = await createClient(server, tenant, { nome: "Ana Souza" })
    const behavior = await get(tenant, behaviorOf(client.id))
    expect(behavior.status).toBe(200)
    expect(behavior.body).toEqual({
      client_id: client.id,
      nome: "Ana Souza",
      client_since: expect.any(String),
      ...window,
      last_activity_at: null,
      visits: 0,
      avg_points_per_visit: 0,
      points: { earned: 0, spent: 0, refunded: 0, expired: 0, balance: 0, total_earned: 0, total_spent: 0 },
      coupons: { generated: 0, used: 0, active: 0 },
      referrals: { made: 0, completed: 0 },
      loyalty: { stamps: 0, cards_completed: 0, open_cards: 0, rewards_to_claim: 0 }
    })
  })
})

describe("metrics follow the actions taken through the API", () => {
  it("counts points, a coupon and a stamp card cycle", async () => {
    const tenant = await createTenant(server)
    const ana = await createClient(server, tenant, { nome: "Ana Souza" })
    await createClient(server, tenant, { nome: "Bruno Lima" })
    await creditPoints(server, tenant, ana.id, 500, { source: "purchase" })
    const coupon = await generateCoupon(server, tenant, { client_id: ana.id, points: 200 })
    await useCoupon(server, tenant, coupon.uid)
    const program = await createProgram(server, tenant, {
      name: "Cartão Café",
      stamps_required: 3,
      reward_description: "Um café"
    })
    const card = await issueCard(server, tenant, ana.id, program.id)
    await stampCard(server, tenant, card.id, { quantity: 2 })
    await stampCard(server, tenant, card.id)

    const loyalty = await get(tenant, `${LOYALTY}?program_id=${program.id}&days=7`)
    expect(loyalty.status).toBe(200)
    expect(loyalty.body).toMatchObject({
      avg_days_to_complete: 0,
      cards_active: 0,
      cards_completed: 1,
      cards_issued: 1,
      completion_rate: 1,
      clients_with_card: 1,
      clients_without_card: 1,
      period_days: 7,
      program_id: program.id,
      program_name: "Cartão Café",
      top_clients: [{ client_id: ana.id, name: "Ana Souza", stamps_total: 3, cards_completed: 1 }]
    })
    expect(loyalty.body.stamps_by_period).toHaveLength(7)
    expect(loyalty.body.stamps_by_period.at(-1)).toEqual({ period: today(), stamps: 3, completions: 1 })

    // Claiming opens the next cycle's card: issued now 2, of which 1 completed.
    await claimCard(server, tenant, card.id)
    const cycled = await get(tenant, `${LOYALTY}?group_by=month`)
    expect(cycled.body).toMatchObject({
      cards_issued: 2,
      completion_rate: 0.5,
      cards_active: 1,
      avg_stamps_per_active_card: 0
    })
    expect(cycled.body.stamps_by_period.at(-1)).toEqual({ period: today().slice(0, 7), stamps: 3, completions: 1 })

    const overview = await get(tenant, `${OVERVIEW}?days=1`)
    expect(overview.body).toMatchObject({
      period_days: 1,
      // Bruno did nothing yet.
      clients: { total: 2, new: 2, active: 1 },
      // 200 points at the default point value (0.01) are worth R$2.
      points: { issued: 500, spent: 200, refunded: 0, outstanding: 300 },
      coupons: { generated: 1, used: 1, active: 0, valor_generated: 2, valor_used: 2 }
    })

    const behavior = await get(tenant, `${behaviorOf(ana.id)}?days=90`)
    expect(behavior.body).toMatchObject({
      period_days: 90,
      last_activity_at: expect.any(String),
      visits: 1,
      avg_points_per_visit: 500,
      points: { earned: 500, spent: 200, refunded: 0, balance: 300, total_earned: 500, total_spent: 200 },
      coupons: { generated: 1, used: 1, active: 0 },
      loyalty: { stamps: 3, cards_completed: 1, open_cards: 1, rewards_to_claim: 0 }
    })
  })

  it("counts each client active once, whichever action wrote its events", async () => {
    const tenant = await createTenant(server)
    const ana = await createClient(server, tenant, { nome: "Ana Souza" })
    const bruno = await createClient(server, tenant, { nome: "Bruno Lima" })
    await createClient(server, tenant, { nome: "Carla Mendes" })
    // Ana: three credits and a coupon (each writes its own event); Bruno: one stamp; Carla: nothing.
    for (const points of [100, 200, 300]) await creditPoints(server, tenant, ana.id, points)
    await generateCoupon(server, tenant, { client_id: ana.id, points: 150 })
    const program = await createProgram(server, tenant, {
      name: "Cartão Pão",
      stamps_required: 5,
      reward_description: "Um pão"
    })
    const card = await issueCard(server, tenant, bruno.id, program.id)
    await stampCard(server, tenant, card.id)

    for (const days of [1, 30, 365]) {
      const overview = await get(tenant, `${OVERVIEW}?days=${days}`)
      expect(overview.body.clients, `days=${days}`).toEqual({ total: 3, new: 3, active: 2 })
    }
  })

  it("serves the same objects as MCP tools, validated against their output schemas", async () => {
    const tenant = await createTenant(server)
    const ana = await createClient(server, tenant)
    const mcp = await connectMcp(server, tenant.key)
    try {
      const loyalty = await mcp.callTool({
        name: "get_loyalty_card_metrics",
        arguments: { program_id: null, days: 3, group_by: "week" }
      })
      expect(loyalty.isError).toBeFalsy()
      expect(loyalty.structuredContent).toMatchObject({ period_days: 3, program_id: null, cards_issued: 0 })
      const overview = await mcp.callTool({ name: "get_metrics_overview", arguments: {} })
      expect(overview.structuredContent).toMatchObject({ period_days: 30, clients: { total: 1 } })
      const behavior = await mcp.callTool({ name: "get_client_behavior", arguments: { client_id: ana.id } })
      expect(behavior.structuredContent).toMatchObject({ client_id: ana.id, visits: 0 })
      const refused = await mcp.callTool({ name: "get_loyalty_card_metrics", arguments: { days: 400 } })
      expect(refused.isError).toBe(true)
    } finally {
      await mcp.close()
    }
  })
})

describe("refusals", () => {
  it("422 for each invalid parameter, with its location", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      [`${LOYALTY}?days=0`, ["query", "days"], "greater_than_equal"],
      [`${LOYALTY}?days=366`, ["query", "days"], "less_than_equal"],
      [`${LOYALTY}?days=x`, ["query", "days"], "number_type"],
      [`${LOYALTY}?days=2.5`, ["query", "days"], "int_type"],
      [`${LOYALTY}?group_by=year`, ["query", "group_by"], "enum"],
      [`${LOYALTY}?program_id=not-a-uuid`, ["query", "program_id"], "uuid_parsing"],
      [`${LOYALTY}?unknown=1`, ["query", "unknown"], "extra_forbidden"],
      [`${OVERVIEW}?days=0`, ["query", "days"], "greater_than_equal"],
      [`${OVERVIEW}?days=366`, ["query", "days"], "less_than_equal"],
      [`${OVERVIEW}?group_by=day`, ["query", "group_by"], "extra_forbidden"],
      [`${behaviorOf(client.id)}?days=x`, ["query", "days"], "number_type"],
      [`${behaviorOf(client.id)}?days=366`, ["query", "days"], "less_than_equal"],
      [behaviorOf("42"), ["path", "client_id"], "uuid_parsing"]
    ]
    for (const [path, loc, type] of cases) {
      const res = await get(tenant, path)
      expect(res.status, path).toBe(422)
      expect(res.body.detail, path).toEqual([{ loc, msg: expect.any(String), type }])
    }
  })

  it("404 for another tenant's program or client", async () => {
    const mine = await createTenant(server)
    const theirs = await createTenant(server)
    const program = await createProgram(server, theirs, {
      name: "Deles",
      stamps_required: 5,
      reward_description: "Pão"
    })
    const client = await createClient(server, theirs)
    const foreignProgram = await get(mine, `${LOYALTY}?program_id=${program.id}`)
    expect(foreignProgram.status).toBe(404)
    expect(foreignProgram.body).toEqual(problem(`Loyalty program ${program.id} not found`, "NOT_FOUND"))
    const foreignClient = await get(mine, behaviorOf(client.id))
    expect(foreignClient.status).toBe(404)
    expect(foreignClient.body).toEqual(problem(`Client ${client.id} not found`, "NOT_FOUND"))
    // The owner sees both.
    expect((await get(theirs, `${LOYALTY}?program_id=${program.id}`)).status).toBe(200)
    expect((await get(theirs, behaviorOf(client.id))).status).toBe(200)
  })

  it("401 without a valid key and 403 without API access", async () => {
    for (const path of [OVERVIEW, LOYALTY, behaviorOf("3c9d7a51-0e2b-4f8a-b6c4-5d1e2f3a4b6c")]) {
      expect((await call(server, path)).status, path).toBe(401)
      expect((await call(server, path, { key: "fid_notavalidkeynotavalidkeynotavalid" })).status, path).toBe(401)
    }
    const blocked = await createTenant(server, { apiAccess: false })
    expect((await get(blocked, OVERVIEW)).status).toBe(403)
    expect((await get(blocked, LOYALTY)).status).toBe(403)
  })
})
