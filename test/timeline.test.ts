import { describe, expect, it } from "vitest"
import {
  call,
  claimCard,
  createClient,
  createProgram,
  createTenant,
  creditPoints,
  generateCoupon,
  issueCard,
  stampCard,
  useServer
} from "./support/index.js"

const server = useServer()

describe("get_client_timeline", () => {
  it("lists a client's events newest first, paged, filtered by category and window", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    for (const [points, source] of [
      [10, "purchase"],
      [20, "referral"],
      [30, "survey"]
    ] as const) {
      await creditPoints(server, tenant, client.id, points, { source, description: `credit ${points}` })
    }
    const all = await call(server, `/api/v1/public/clients/${client.id}/timeline`, { key: tenant.key })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ total: 3, page: 1, pages: 1, per_page: 20 })
    expect(all.body.data.map((e: { type: string; points: number }) => [e.type, e.points])).toEqual([
      ["interaction", 30],
      ["referral", 20],
      ["purchase", 10]
    ])
    expect(all.body.data[2]).toMatchObject({
      title: "+10 points",
      description: "credit 10",
      empresa: { id: tenant.empresa.id, name: tenant.empresa.name, logo_url: null },
      metadata: { source: "purchase", transaction_id: expect.any(String) }
    })

    const paged = await call(server, `/api/v1/public/clients/${client.id}/timeline?per_page=2&page=2`, {
      key: tenant.key
    })
    expect(paged.body).toMatchObject({ total: 3, page: 2, pages: 2, per_page: 2 })
    expect(paged.body.data.map((e: { points: number }) => e.points)).toEqual([10])
    const beyond = await call(server, `/api/v1/public/clients/${client.id}/timeline?per_page=2&page=5`, {
      key: tenant.key
    })
    expect(beyond.body).toMatchObject({ data: [], total: 3, pages: 2 })

    const two = await call(server, `/api/v1/public/clients/${client.id}/timeline?category=purchase&category=referral`, {
      key: tenant.key
    })
    expect(two.body.data.map((e: { type: string }) => e.type)).toEqual(["referral", "purchase"])
    const one = await call(server, `/api/v1/public/clients/${client.id}/timeline?category=interaction`, {
      key: tenant.key
    })
    expect(one.body.total).toBe(1)

    const future = new Date(Date.now() + 60_000).toISOString()
    const none = await call(server, `/api/v1/public/clients/${client.id}/timeline?from=${encodeURIComponent(future)}`, {
      key: tenant.key
    })
    expect(none.body.total).toBe(0)
  })

  it("refuses bad filters with 422 and another tenant's client with 404", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const bad = await call(server, `/api/v1/public/clients/${client.id}/timeline?category=shopping`, {
      key: tenant.key
    })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(["query", "category"])
    const window = await call(
      server,
      `/api/v1/public/clients/${client.id}/timeline?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
      {
        key: tenant.key
      }
    )
    expect(window.status).toBe(422)
    expect(window.body.detail[0].loc).toEqual(["query", "from"])
    const other = await createTenant(server)
    const foreign = await call(server, `/api/v1/public/clients/${client.id}/timeline`, { key: other.key })
    expect(foreign.status).toBe(404)
  })
})

describe("a client's timeline after a scripted sequence", () => {
  it("lists exactly the credit, coupon, stamps and claim, newest first, with signs and metadata, paged", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 100, { description: "Compra #1" })
    const coupon = await generateCoupon(server, tenant, { client_id: client.id, points: 40 })
    const program = await createProgram(server, tenant, {
      name: "Café",
      stamps_required: 2,
      reward_description: "Um café grátis"
    })
    const card = await issueCard(server, tenant, client.id, program.id)
    await stampCard(server, tenant, card.id)
    await stampCard(server, tenant, card.id)
    await claimCard(server, tenant, card.id)

    const timeline = await call(server, `/api/v1/public/clients/${client.id}/timeline`, { key: tenant.key })
    expect(timeline.body.total).toBe(5)
    const summary = timeline.body.data.map((e: { type: string; points: number }) => [e.type, e.points])
    expect(summary).toEqual([
      ["reward", 0],
      ["interaction", 0],
      ["interaction", 0],
      ["reward", -40],
      ["purchase", 100]
    ])
    const [claim, secondStamp, , spend, credit] = timeline.body.data
    expect(claim.metadata).toMatchObject({
      card_id: card.id,
      program_name: "Café",
      reward_description: "Um café grátis"
    })
    expect(secondStamp.metadata).toMatchObject({ interaction_type: "loyalty_stamp", card_id: card.id, stamps: 2 })
    expect(spend.metadata).toMatchObject({ coupon_uid: coupon.uid })
    expect(credit).toMatchObject({ description: "Compra #1", metadata: { source: null } })

    const pages = []
    for (let page = 1; page <= 3; page++) {
      const res = await call(server, `/api/v1/public/clients/${client.id}/timeline?per_page=2&page=${page}`, {
        key: tenant.key
      })
      expect(res.body).toMatchObject({ total: 5, pages: 3, page, per_page: 2 })
      pages.push(...res.body.data)
    }
    expect(pages.map((e: { id: string }) => e.id)).toEqual(timeline.body.data.map((e: { id: string }) => e.id))

    const rewards = await call(server, `/api/v1/public/clients/${client.id}/timeline?category=reward`, {
      key: tenant.key
    })
    expect(rewards.body.data.map((e: { points: number }) => e.points)).toEqual([0, -40])
  })
})
