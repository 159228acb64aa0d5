import { describe, expect, it } from "vitest"
import {
  call,
  createClient,
  createProgram,
  createTenant,
  issueCard,
  timelineOf,
  useServer,
  type Tenant,
  problem
} from "./support/index.js"

const server = useServer()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const BASE = "/api/v1/public/loyalty-cards"
const MISSING = "00000000-0000-4000-8000-000000000000"

interface Program {
  id: string
  name: string
  stamps_required: number
  reward_description: string
}
interface Card {
  id: string
  client_id: string
  program_id: string
  stamps: number
  max_stamps: number
  status: string
  created_at: string
}

/** A tenant with one client holding an empty card of a fresh program. */
const cardSetup = async (program: Record<string, unknown> = {}) => {
  const tenant = await createTenant(server)
  const client = await createClient(server, tenant)
  const prog = await createProgram(server, tenant, program)
  const card = await issueCard(server, tenant, client.id, prog.id)
  return { tenant, client, program: prog, card }
}

const stamp = (
  tenant: Tenant,
  cardId: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) => call(server, `${BASE}/${cardId}/stamp`, { key: tenant.key, body, headers })

const cardsOf = async (tenant: Tenant, query = "") =>
  (await call(server, `${BASE}${query}`, { key: tenant.key })).body as Card[]

describe("loyalty card programs", () => {
  it("creates, lists (GET /loyalty-cards/programs is the programs list) and updates", async () => {
    const tenant = await createTenant(server)
    const created = await call(server, `${BASE}/programs`, {
      key: tenant.key,
      body: {
        name: " Cartão Café ",
        stamps_required: 10,
        reward_description: "Um expresso grátis",
        image_url: "https://cdn.example.com/cafe.png"
      }
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Cartão Café",
      stamps_required: 10,
      reward_description: "Um expresso grátis",
      image_url: "https://cdn.example.com/cafe.png",
      active: true,
      created_at: expect.stringMatching(ISO),
      updated_at: created.body.created_at
    })
    const paused = await createProgram(server, tenant, { name: "Cartão Pão", active: false })

    const all = await call(server, `${BASE}/programs`, { key: tenant.key })
    expect(all.status).toBe(200)
    expect(all.body).toEqual([created.body, { ...paused, image_url: null, active: false }])
    const active = await call(server, `${BASE}/programs?active=true`, { key: tenant.key })
    expect(active.body.map((p: Program) => p.name)).toEqual(["Cartão Café"])
    const inactive = await call(server, `${BASE}/programs?active=false`, { key: tenant.key })
    expect(inactive.body.map((p: Program) => p.name)).toEqual(["Cartão Pão"])

    const updated = await call(server, `${BASE}/programs/${created.body.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { reward_description: "Um cappuccino grátis", image_url: null, active: false }
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toEqual({
      ...created.body,
      reward_description: "Um cappuccino grátis",
      image_url: null,
      active: false,
      updated_at: expect.stringMatching(ISO)
    })

    // Programs are per tenant.
    const other = await createTenant(server)
    expect((await call(server, `${BASE}/programs`, { key: other.key })).body).toEqual([])
    const foreign = await call(server, `${BASE}/programs/${created.body.id}`, {
      key: other.key,
      method: "PATCH",
      body: { name: "Hijack" }
    })
    expect(foreign.status).toBe(404)
    const missing = await call(server, `${BASE}/programs/${MISSING}`, {
      key: tenant.key,
      method: "PATCH",
      body: { name: "X" }
    })
    expect(missing.status).toBe(404)
    expect((await call(server, `${BASE}/programs`, { key: tenant.key })).body[0].name).toBe("Cartão Café")
  })

  it("refuses invalid programs with 422 at the field and creates nothing", async () => {
    const tenant = await createTenant(server)
    const valid = { name: "Cartão", stamps_required: 5, reward_description: "Brinde" }
    const cases: Array<[Record<string, unknown>, unknown[], string]> = [
      [{ ...valid, stamps_required: 0 }, ["body", "stamps_required"], "greater_than_equal"],
      [{ ...valid, stamps_required: 101 }, ["body", "stamps_required"], "less_than_equal"],
      [{ ...valid, stamps_required: 2.5 }, ["body", "stamps_required"], expect.any(String)],
      [{ ...valid, name: "  " }, ["body", "name"], "string_too_short"],
      [{ name: "X", stamps_required: 5 }, ["body", "reward_description"], "missing"],
      [{ ...valid, image_url: "ftp://example.com/a.png" }, ["body", "image_url"], expect.any(String)],
      [{ ...valid, active: "false" }, ["body", "active"], expect.any(String)],
      [{ ...valid, color: "red" }, ["body", "color"], "extra_forbidden"]
    ]
    for (const [body, loc, type] of cases) {
      const res = await call(server, `${BASE}/programs`, { key: tenant.key, body })
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type })
    }
    const program = await createProgram(server, tenant)
    const patches: Array<[string, Record<string, unknown>, unknown[]]> = [
      [program.id, { stamps_required: 0 }, ["body", "stamps_required"]],
      [program.id, { extra: 1 }, ["body", "extra"]],
      ["not-a-uuid", { name: "X" }, ["path", "program_id"]]
    ]
    for (const [id, body, loc] of patches) {
      const res = await call(server, `${BASE}/programs/${id}`, { key: tenant.key, method: "PATCH", body })
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: expect.any(String) })
    }
    const list = await call(server, `${BASE}/programs?active=maybe`, { key: tenant.key })
    expect(list.status).toBe(422)
    expect(list.body.detail[0].loc).toEqual(["query", "active"])
    expect((await call(server, `${BASE}/programs`, { key: tenant.key })).body).toEqual([program])
  })
})

describe("issuing and listing loyalty cards", () => {
  it("issues an empty card and lists it, filtered by client, program and status", async () => {
    const tenant = await createTenant(server)
    const maria = await createClient(server, tenant, { nome: "Maria" })
    const joao = await createClient(server, tenant, { nome: "João" })
    const cafe = await createProgram(server, tenant)
    const pao = await createProgram(server, tenant, {
      name: "Cartão Pão",
      stamps_required: 5,
      reward_description: "Um pão grátis"
    })

    const issued = await call(server, BASE, { key: tenant.key, body: { client_id: maria.id, program_id: cafe.id } })
    expect(issued.status).toBe(201)
    expect(issued.body).toEqual({
      id: expect.stringMatching(UUID),
      client_id: maria.id,
      program_id: cafe.id,
      program_name: "Cartão Café",
      reward_description: "Um café grátis",
      stamps: 0,
      max_stamps: 8,
      completed: false,
      status: "active",
      completed_at: null,
      claimed_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: issued.body.created_at
    })
    const mariaPao = await issueCard(server, tenant, maria.id, pao.id)
    const joaoCafe = await issueCard(server, tenant, joao.id, cafe.id)
    await stamp(tenant, mariaPao.id, { quantity: 5 })

    const all = await call(server, BASE, { key: tenant.key })
    expect(all.status).toBe(200)
    expect(all.body.map((c: Card) => c.id)).toEqual([joaoCafe.id, mariaPao.id, issued.body.id])
    expect(all.body[2]).toEqual(issued.body)
    expect((await cardsOf(tenant, `?client_id=${maria.id}`)).map((c) => c.id)).toEqual([mariaPao.id, issued.body.id])
    expect((await cardsOf(tenant, `?program_id=${cafe.id}`)).map((c) => c.id)).toEqual([joaoCafe.id, issued.body.id])
    expect((await cardsOf(tenant, `?client_id=${maria.id}&program_id=${cafe.id}`)).map((c) => c.id)).toEqual([
      issued.body.id
    ])
    expect((await cardsOf(tenant, "?status=completed")).map((c) => c.id)).toEqual([mariaPao.id])

    // Paging: `limit` and the `starting_after` cursor.
    const first = await cardsOf(tenant, "?limit=2")
    expect(first.map((c) => c.id)).toEqual([joaoCafe.id, mariaPao.id])
    const rest = await cardsOf(tenant, `?limit=2&starting_after=${first[1]!.id}`)
    expect(rest.map((c) => c.id)).toEqual([issued.body.id])

    const bad: Array<[string, unknown[]]> = [
      ["?client_id=nope", ["query", "client_id"]],
      ["?status=open", ["query", "status"]],
      ["?limit=0", ["query", "limit"]],
      ["?limit=501", ["query", "limit"]],
      ["?color=red", ["query", "color"]]
    ]
    for (const [query, loc] of bad) {
      const res = await call(server, `${BASE}${query}`, { key: tenant.key })
      expect(res.status, query).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: expect.any(String) })
    }
    const other = await createTenant(server)
    expect(await cardsOf(other)).toEqual([])
    expect((await call(server, `${BASE}?starting_after=${issued.body.id}`, { key: other.key })).status).toBe(404)
  })

  it("refuses a second open card, an inactive program and another tenant's client or program", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const program = await createProgram(server, tenant)
    const card = await issueCard(server, tenant, client.id, program.id)

    const again = await call(server, BASE, { key: tenant.key, body: { client_id: client.id, program_id: program.id } })
    expect(again.status).toBe(409)
    expect(again.body.detail).toEqual({ code: "CARD_ALREADY_ISSUED", message: expect.any(String) })

    const paused = await createProgram(server, tenant, { active: false })
    const inactive = await call(server, BASE, {
      key: tenant.key,
      body: { client_id: client.id, program_id: paused.id }
    })
    expect(inactive.status).toBe(409)
    expect(inactive.body.detail).toEqual({ code: "PROGRAM_INACTIVE", message: expect.any(String) })

    const other = await createTenant(server)
    const otherClient = await createClient(server, other)
    const otherProgram = await createProgram(server, other)
    const foreignClient = await call(server, BASE, {
      key: tenant.key,
      body: { client_id: otherClient.id, program_id: program.id }
    })
    expect(foreignClient.status).toBe(404)
    expect(foreignClient.body).toEqual(problem(`Client ${otherClient.id} not found`, "NOT_FOUND"))
    const foreignProgram = await call(server, BASE, {
      key: tenant.key,
      body: { client_id: client.id, program_id: otherProgram.id }
    })
    expect(foreignProgram.status).toBe(404)
    expect(foreignProgram.body).toEqual(problem(`Loyalty program ${otherProgram.id} not found`, "NOT_FOUND"))

    const invalid: Array<[Record<string, unknown>, unknown[]]> = [
      [{ client_id: "abc", program_id: program.id }, ["body", "client_id"]],
      [{ client_id: client.id }, ["body", "program_id"]],
      [{ client_id: client.id, program_id: program.id, stamps: 3 }, ["body", "stamps"]]
    ]
    for (const [body, loc] of invalid) {
      const res = await call(server, BASE, { key: tenant.key, body })
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: expect.any(String) })
    }
    expect((await cardsOf(tenant)).map((c) => c.id)).toEqual([card.id])
  })
})

describe("stamp_loyalty_card", () => {
  const stamps =
    "adds stamps, returns the progress, completes the card at max_stamps and logs each stamp on the timeline"
  it(stamps, async () => {
    const { tenant, client, card } = await cardSetup({ stamps_required: 4 })
    const one = await stamp(tenant, card.id)
    expect(one.status).toBe(200)
    expect(one.body).toEqual({
      card_id: card.id,
      client_id: client.id,
      program_id: card.program_id,
      stamps: 1,
      max_stamps: 4,
      completed: false,
      stamped: 1
    })
    const full = await stamp(tenant, card.id, { quantity: 3 })
    expect(full.body).toEqual({ ...one.body, stamps: 4, completed: true, stamped: 3 })

    const [listed] = await cardsOf(tenant)
    expect(listed).toMatchObject({ stamps: 4, max_stamps: 4, completed: true, status: "completed", claimed_at: null })
    expect((listed as unknown as { completed_at: string }).completed_at).toMatch(ISO)

    const timeline = await timelineOf(server, tenant, client.id, "?category=interaction")
    expect(timeline.total).toBe(2)
    expect(timeline.data[0]).toMatchObject({
      type: "interaction",
      title: "+3 stamps",
      description: "Cartão Café: 4 of 4 stamps",
      points: 0,
      metadata: {
        interaction_type: "loyalty_stamp",
        card_id: card.id,
        program_id: card.program_id,
        program_name: "Cartão Café",
        quantity: 3,
        stamps: 4,
        max_stamps: 4,
        completed: true,
        stamp_id: expect.stringMatching(UUID)
      }
    })
    expect(timeline.data[1]).toMatchObject({
      title: "+1 stamp",
      metadata: { quantity: 1, stamps: 1, completed: false }
    })

    const again = await stamp(tenant, card.id)
    expect(again.status).toBe(409)
    expect(again.body.detail).toEqual({ code: "CARD_COMPLETED", message: expect.any(String) })
    expect((await timelineOf(server, tenant, client.id, "?category=interaction")).total).toBe(2)
  })

  it("refuses more stamps than the card still needs, stamping nothing", async () => {
    const { tenant, card } = await cardSetup({ stamps_required: 5 })
    await stamp(tenant, card.id, { quantity: 3 })
    const over = await stamp(tenant, card.id, { quantity: 3 })
    expect(over.status).toBe(409)
    expect(over.body.detail).toEqual({
      code: "STAMPS_EXCEED_REMAINING",
      message: expect.stringContaining("needs 2 more stamps")
    })
    expect((await cardsOf(tenant))[0]).toMatchObject({ stamps: 3, status: "active" })
    const exact = await stamp(tenant, card.id, { quantity: 2 })
    expect(exact.body).toMatchObject({ stamps: 5, completed: true })
  })

  it("refuses stamps while the program is inactive", async () => {
    const { tenant, program, card } = await cardSetup()
    await call(server, `${BASE}/programs/${program.id}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    const refused = await stamp(tenant, card.id)
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toEqual({ code: "PROGRAM_INACTIVE", message: expect.any(String) })
    await call(server, `${BASE}/programs/${program.id}`, { key: tenant.key, method: "PATCH", body: { active: true } })
    expect((await stamp(tenant, card.id)).body.stamps).toBe(1)
  })

  it("answers 404 for another tenant's card and 422 for each invalid field, changing nothing", async () => {
    const { tenant, client, card } = await cardSetup()
    const other = await createTenant(server)
    const foreign = await stamp(other, card.id)
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual(problem(`Loyalty card ${card.id} not found`, "NOT_FOUND"))
    expect((await stamp(tenant, MISSING)).status).toBe(404)

    const cases: Array<[string, Record<string, unknown>, unknown[], string]> = [
      [card.id, { quantity: 0 }, ["body", "quantity"], "greater_than_equal"],
      [card.id, { quantity: -2 }, ["body", "quantity"], "greater_than_equal"],
      [card.id, { quantity: 1.5 }, ["body", "quantity"], expect.any(String)],
      [card.id, { quantity: "two" }, ["body", "quantity"], expect.any(String)],
      [card.id, { quantity: 101 }, ["body", "quantity"], "less_than_equal"],
      [card.id, { quantity: 1, note: "x" }, ["body", "note"], "extra_forbidden"],
      ["not-a-uuid", {}, ["path", "card_id"], "uuid_parsing"]
    ]
    for (const [id, body, loc, type] of cases) {
      const res = await stamp(tenant, id, body)
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type })
    }
    expect((await cardsOf(tenant))[0]!.stamps).toBe(0)
    expect((await timelineOf(server, tenant, client.id, "?category=interaction")).total).toBe(0)
  })
})

describe("stamp_loyalty_card idempotency (X-Idempotency-Key)", () => {
  it("replays the same key and body without stamping again; a different body is 422", async () => {
    const { tenant, client, card } = await cardSetup()
    const headers = { "x-idempotency-key": "visit-2026-11-22-001" }
    const first = await stamp(tenant, card.id, { quantity: 2 }, headers)
    const second = await stamp(tenant, card.id, { quantity: 2 }, headers)
    expect(first.status).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(second.status).toBe(200)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(second.body).toEqual(first.body)
    expect(first.body).toMatchObject({ stamps: 2, stamped: 2 })

    const reused = await stamp(tenant, card.id, { quantity: 3 }, headers)
    expect(reused.status).toBe(422)
    expect(reused.body.detail).toEqual([
      {
        loc: ["header", "X-Idempotency-Key"],
        msg: expect.stringMatching(/different request body/),
        type: "idempotency_key_reused"
      }
    ])
    expect((await cardsOf(tenant))[0]!.stamps).toBe(2)
    expect((await timelineOf(server, tenant, client.id, "?category=interaction")).total).toBe(1)

    // The key is per operation body: the default quantity fingerprints like an explicit 1.
    const implicit = await stamp(tenant, card.id, {}, { "x-idempotency-key": "visit-2" })
    const explicit = await stamp(tenant, card.id, { quantity: 1 }, { "x-idempotency-key": "visit-2" })
    expect(explicit.headers.get("idempotent-replayed")).toBe("true")
    expect(explicit.body).toEqual(implicit.body)
    expect((await cardsOf(tenant))[0]!.stamps).toBe(3)
  })
})

describe("concurrency", () => {
  const modes: Array<[string, (i: number) => Record<string, string>]> = [
    ["distinct idempotency keys", (i) => ({ "x-idempotency-key": `parallel-${i}` })],
    ["no idempotency key", () => ({})]
  ]

  it.each(modes)(
    "20 parallel stamps (%s) on an 8-stamp card: 8 succeed, 12 get CARD_COMPLETED",
    async (_mode, headersOf) => {
      const { tenant, client, card } = await cardSetup({ stamps_required: 8 })
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stamp(tenant, card.id, {}, headersOf(i))))
      const ok = results.filter((r) => r.status === 200)
      const refused = results.filter((r) => r.status !== 200)
      expect(ok).toHaveLength(8)
      expect(refused.map((r) => [r.status, r.body.detail.code])).toEqual(
        Array.from({ length: 12 }, () => [409, "CARD_COMPLETED"])
      )
      // Each stamp saw a distinct count: no lost update, and exactly one completed the card.
      expect(ok.map((r) => r.body.stamps).toSorted((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      expect(ok.filter((r) => r.body.completed)).toHaveLength(1)
      expect((await cardsOf(tenant))[0]).toMatchObject({ stamps: 8, max_stamps: 8, status: "completed" })
      expect((await timelineOf(server, tenant, client.id, "?category=interaction")).total).toBe(8)
    }
  )
})

describe("claiming a completed card's reward", () => {
  it("claims, writes the reward event and opens the next cycle's card", async () => {
    const { tenant, client, program, card } = await cardSetup({ stamps_required: 2 })
    const early = await call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: {} })
    expect(early.status).toBe(409)
    expect(early.body.detail).toEqual({ code: "CARD_NOT_COMPLETED", message: expect.stringContaining("0 of 2") })

    await stamp(tenant, card.id, { quantity: 2 })
    const claimed = await call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: {} })
    expect(claimed.status).toBe(200)
    expect(claimed.body).toEqual({
      claimed_card: {
        id: card.id,
        client_id: client.id,
        program_id: program.id,
        program_name: "Cartão Café",
        reward_description: "Um café grátis",
        stamps: 2,
        max_stamps: 2,
        completed: true,
        status: "claimed",
        completed_at: expect.stringMatching(ISO),
        claimed_at: expect.stringMatching(ISO),
        created_at: card.created_at,
        updated_at: expect.stringMatching(ISO)
      },
      next_card: {
        id: expect.stringMatching(UUID),
        client_id: client.id,
        program_id: program.id,
        program_name: "Cartão Café",
        reward_description: "Um café grátis",
        stamps: 0,
        max_stamps: 2,
        completed: false,
        status: "active",
        completed_at: null,
        claimed_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO)
      }
    })
    const next = claimed.body.next_card as Card
    expect(next.id).not.toBe(card.id)

    const rewards = await timelineOf(server, tenant, client.id, "?category=reward")
    expect(rewards.total).toBe(1)
    expect(rewards.data[0]).toMatchObject({
      type: "reward",
      title: "Reward claimed: Um café grátis",
      description: "Cartão Café",
      points: 0,
      metadata: {
        card_id: card.id,
        program_id: program.id,
        program_name: "Cartão Café",
        reward_description: "Um café grátis",
        next_card_id: next.id
      }
    })

    const twice = await call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: {} })
    expect(twice.status).toBe(409)
    expect(twice.body.detail).toEqual({ code: "CARD_ALREADY_CLAIMED", message: expect.any(String) })
    const stampClaimed = await stamp(tenant, card.id)
    expect(stampClaimed.status).toBe(409)
    expect(stampClaimed.body.detail.code).toBe("CARD_COMPLETED")

    // The new cycle: stamps go to the next card; the client still has one open card of the program.
    expect((await stamp(tenant, next.id)).body).toMatchObject({ card_id: next.id, stamps: 1 })
    expect((await cardsOf(tenant, `?client_id=${client.id}`)).map((c) => [c.id, c.status])).toEqual([
      [next.id, "active"],
      [card.id, "claimed"]
    ])
    const duplicate = await call(server, BASE, {
      key: tenant.key,
      body: { client_id: client.id, program_id: program.id }
    })
    expect(duplicate.body.detail.code).toBe("CARD_ALREADY_ISSUED")
    expect((await timelineOf(server, tenant, client.id, "?category=reward")).total).toBe(1)
  })

  it("gives a new stamps_required to later cards only, and opens no next card for an inactive program", async () => {
    const { tenant, program, card } = await cardSetup({ stamps_required: 3 })
    const changed = await call(server, `${BASE}/programs/${program.id}`, {
      key: tenant.key,
      method: "PATCH",
      body: { stamps_required: 5 }
    })
    expect(changed.body.stamps_required).toBe(5)
    // The open card keeps its goal.
    expect((await stamp(tenant, card.id, { quantity: 3 })).body).toMatchObject({
      stamps: 3,
      max_stamps: 3,
      completed: true
    })
    const cycle = await call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: {} })
    expect(cycle.body.next_card).toMatchObject({ stamps: 0, max_stamps: 5 })

    await stamp(tenant, cycle.body.next_card.id, { quantity: 5 })
    await call(server, `${BASE}/programs/${program.id}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    // An earned reward is still given; the paused program starts no new cycle.
    const last = await call(server, `${BASE}/${cycle.body.next_card.id}/claim`, { key: tenant.key, body: {} })
    expect(last.status).toBe(200)
    expect(last.body.claimed_card.status).toBe("claimed")
    expect(last.body.next_card).toBeNull()
  })

  it("5 parallel claims give the reward once and open one next card", async () => {
    const { tenant, client, card } = await cardSetup({ stamps_required: 1 })
    await stamp(tenant, card.id)
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: {} }))
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    const refused = results.filter((r) => r.status !== 200)
    expect(refused.map((r) => [r.status, r.body.detail.code])).toEqual(
      Array.from({ length: 4 }, () => [409, "CARD_ALREADY_CLAIMED"])
    )
    expect((await cardsOf(tenant)).map((c) => c.status)).toEqual(["active", "claimed"])
    expect((await timelineOf(server, tenant, client.id, "?category=reward")).total).toBe(1)
  })

  it("answers 404 for another tenant's card and 422 for a malformed id", async () => {
    const { tenant, card } = await cardSetup({ stamps_required: 1 })
    await stamp(tenant, card.id)
    const other = await createTenant(server)
    const foreign = await call(server, `${BASE}/${card.id}/claim`, { key: other.key, body: {} })
    expect(foreign.status).toBe(404)
    const malformed = await call(server, `${BASE}/abc/claim`, { key: tenant.key, body: {} })
    expect(malformed.status).toBe(422)
    expect(malformed.body.detail[0].loc).toEqual(["path", "card_id"])
    const extra = await call(server, `${BASE}/${card.id}/claim`, { key: tenant.key, body: { force: true } })
    expect(extra.status).toBe(422)
    expect(extra.body.detail).toContainEqual({
      loc: ["body", "force"],
      msg: expect.any(String),
      type: "extra_forbidden"
    })
    expect((await cardsOf(tenant))[0]!.status).toBe("completed")
  })
})
