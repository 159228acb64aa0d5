import { describe, expect, it } from "vitest"
import { call, createCampaign, createTenant, useServer, type Tenant, problem } from "./support/index.js"

const server = useServer()

const CAMPAIGNS = "/api/v1/public/referrals/campaigns"
const DAY = 86_400_000
/** Whole seconds, as the API returns them; one base for the file, so equal offsets are equal instants. */
const BASE = Math.floor(Date.now() / 1000) * 1000
/** An instant `days` from the start of this file's run. */
const at = (days: number) => new Date(BASE + days * DAY).toISOString()
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const create = (tenant: Tenant, body: Record<string, unknown>) => call(server, CAMPAIGNS, { key: tenant.key, body })
const update = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  call(server, `${CAMPAIGNS}/${id}`, { key: tenant.key, method: "PATCH", body })
const list = async (tenant: Tenant) => {
  const res = await call(server, CAMPAIGNS, { key: tenant.key })
  expect(res.status).toBe(200)
  return res.body as Array<Record<string, unknown>>
}

describe("create_referral_campaign, list_referral_campaigns, update_referral_campaign", () => {
  it("creates a campaign (201) and returns the full record", async () => {
    const tenant = await createTenant(server)
    const startsAt = at(-1)
    const endsAt = at(30)
    const res = await create(tenant, {
      name: "Indique um amigo",
      referrer_bonus: 100,
      referred_bonus: 50,
      starts_at: startsAt,
      ends_at: endsAt
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Indique um amigo",
      referrer_bonus: 100,
      referred_bonus: 50,
      starts_at: startsAt,
      ends_at: endsAt,
      active: true,
      status: "running",
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at
    })
    expect(await list(tenant)).toEqual([res.body])
  })

  it("defaults starts_at to now and ends_at to open-ended; normalizes offsets to UTC", async () => {
    const tenant = await createTenant(server)
    const before = Date.now()
    const open = await create(tenant, { name: "Sempre", referrer_bonus: 0, referred_bonus: 0 })
    expect(open.status).toBe(201)
    expect(open.body).toMatchObject({ ends_at: null, active: true, status: "running", referrer_bonus: 0 })
    expect(Math.abs(Date.parse(open.body.starts_at) - before)).toBeLessThan(60_000)

    // Inactive campaigns never overlap anything, and an offset instant comes back in UTC.
    const offset = await create(tenant, {
      name: "Rascunho",
      referrer_bonus: 10,
      referred_bonus: 5,
      starts_at: "2030-01-01T00:00:00-03:00",
      ends_at: "2030-02-01T00:00:00-03:00",
      active: false
    })
    expect(offset.status).toBe(201)
    expect(offset.body).toMatchObject({
      starts_at: "2030-01-01T03:00:00.000Z",
      ends_at: "2030-02-01T03:00:00.000Z",
      active: false,
      status: "inactive"
    })
  })

  it("lists newest first with each campaign's status", async () => {
    const tenant = await createTenant(server)
    const ended = await create(tenant, {
      name: "Ended",
      referrer_bonus: 1,
      referred_bonus: 1,
      starts_at: at(-20),
      ends_at: at(-10)
    })
    const running = await create(tenant, {
      name: "Running",
      referrer_bonus: 2,
      referred_bonus: 2,
      starts_at: at(-10),
      ends_at: at(10)
    })
    // Windows are half-open: one starting exactly when another ends does not overlap it.
    const scheduled = await create(tenant, {
      name: "Scheduled",
      referrer_bonus: 3,
      referred_bonus: 3,
      starts_at: at(10)
    })
    const inactive = await create(tenant, {
      name: "Off",
      referrer_bonus: 4,
      referred_bonus: 4,
      starts_at: at(-5),
      active: false
    })
    for (const res of [ended, running, scheduled, inactive]) expect(res.status).toBe(201)
    const campaigns = await list(tenant)
    expect(campaigns.map((c) => [c["name"], c["status"]])).toEqual([
      ["Off", "inactive"],
      ["Scheduled", "scheduled"],
      ["Running", "running"],
      ["Ended", "ended"]
    ])
    expect(campaigns[1]).toEqual(scheduled.body)

    const fresh = await createTenant(server)
    expect(await list(fresh)).toEqual([])
  })

  it("updates only the fields sent, and ends_at null makes it open-ended", async () => {
    const tenant = await createTenant(server)
    const created = await createCampaign(server, tenant, {
      name: "Black Friday",
      referrer_bonus: 100,
      referred_bonus: 50,
      starts_at: at(-1),
      ends_at: at(5)
    })
    const renamed = await update(tenant, created.id, { name: "Black Week", referred_bonus: 75 })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toEqual({
      ...created,
      name: "Black Week",
      referred_bonus: 75,
      updated_at: expect.stringMatching(ISO)
    })
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at))

    const open = await update(tenant, created.id, { ends_at: null })
    expect(open.status).toBe(200)
    expect(open.body).toMatchObject({ ends_at: null, status: "running" })

    const stopped = await update(tenant, created.id, { active: false })
    expect(stopped.body).toMatchObject({ active: false, status: "inactive" })

    const unchanged = await update(tenant, created.id, {})
    expect(unchanged.status).toBe(200)
    expect(unchanged.body).toEqual(stopped.body)
    expect(await list(tenant)).toEqual([stopped.body])
  })

  it("answers 404 for another tenant's campaign and for an unknown id", async () => {
    const owner = await createTenant(server)
    const campaign = await createCampaign(server, owner, { name: "Minha", referrer_bonus: 10, referred_bonus: 10 })
    const other = await createTenant(server)
    const foreign = await update(other, campaign.id, { name: "Roubada" })
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual(problem(expect.any(String), "NOT_FOUND"))
    const unknown = await update(owner, "00000000-0000-4000-8000-000000000000", { name: "X" })
    expect(unknown.status).toBe(404)
    expect(await list(other)).toEqual([])
    expect((await list(owner))[0]).toEqual(campaign)
  })
})

describe("invalid input changes nothing and gets the documented 422 shape", () => {
  it("names each bad field with its location", async () => {
    const tenant = await createTenant(server)
    const campaign = await createCampaign(server, tenant, {
      name: "Base",
      referrer_bonus: 10,
      referred_bonus: 5,
      starts_at: at(-1),
      ends_at: at(1)
    })
    const valid = { name: "Nova", referrer_bonus: 10, referred_bonus: 5, active: false }
    const cases: Array<[string, Record<string, unknown>, unknown[], string?]> = [
      ["POST", { ...valid, referrer_bonus: -1 }, ["body", "referrer_bonus"], "greater_than_equal"],
      ["POST", { ...valid, referred_bonus: -5 }, ["body", "referred_bonus"], "greater_than_equal"],
      ["POST", { ...valid, referrer_bonus: 1.5 }, ["body", "referrer_bonus"]],
      ["POST", { ...valid, starts_at: at(2), ends_at: at(1) }, ["body", "ends_at"]],
      ["POST", { ...valid, starts_at: at(1), ends_at: at(1) }, ["body", "ends_at"]],
      // Without starts_at the campaign starts now, so an ends_at in the past is refused too.
      ["POST", { ...valid, ends_at: at(-1) }, ["body", "ends_at"]],
      ["POST", { ...valid, starts_at: "next monday" }, ["body", "starts_at"]],
      ["POST", { ...valid, ends_at: "2026-13-01T00:00:00Z" }, ["body", "ends_at"]],
      ["POST", { ...valid, starts_at: "2026-01-01" }, ["body", "starts_at"]],
      ["POST", { ...valid, active: "false" }, ["body", "active"]],
      ["POST", { ...valid, bonus: 10 }, ["body", "bonus"], "extra_forbidden"],
      ["POST", { ...valid, name: "" }, ["body", "name"]],
      ["POST", { referrer_bonus: 1, referred_bonus: 1 }, ["body", "name"], "missing"],
      ["PATCH", { referrer_bonus: -1 }, ["body", "referrer_bonus"]],
      ["PATCH", { starts_at: at(3), ends_at: at(2) }, ["body", "ends_at"]],
      // One end moved past the stored other end: the domain check names the field sent.
      ["PATCH", { ends_at: at(-2) }, ["body", "ends_at"]],
      ["PATCH", { starts_at: at(2) }, ["body", "starts_at"]],
      ["PATCH", { ends_at: "tomorrow" }, ["body", "ends_at"]],
      ["PATCH", { status: "running" }, ["body", "status"], "extra_forbidden"]
    ]
    const anyType = expect.any(String)
    for (const [method, body, loc, type] of cases) {
      const res = method === "POST" ? await create(tenant, body) : await update(tenant, campaign.id, body)
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: type ?? anyType })
    }
    const badId = await update(tenant, "not-a-uuid", { name: "X" })
    expect(badId.status).toBe(422)
    expect(badId.body.detail).toContainEqual({
      loc: ["path", "campaign_id"],
      msg: expect.any(String),
      type: "uuid_parsing"
    })
    const badQuery = await call(server, `${CAMPAIGNS}?status=running`, { key: tenant.key })
    expect(badQuery.status).toBe(422)
    expect(badQuery.body.detail).toContainEqual({
      loc: ["query", "status"],
      msg: expect.any(String),
      type: "extra_forbidden"
    })

    expect(await list(tenant)).toEqual([campaign])
  })
})

describe("at most one active campaign at any instant (409 CAMPAIGN_OVERLAP)", () => {
  it("refuses an overlapping create, update or reactivation, and changes nothing", async () => {
    const tenant = await createTenant(server)
    const november = await create(tenant, {
      name: "Novembro",
      referrer_bonus: 100,
      referred_bonus: 50,
      starts_at: at(0),
      ends_at: at(30)
    })
    expect(november.status).toBe(201)

    const overlapping = await create(tenant, {
      name: "Dezembro",
      referrer_bonus: 10,
      referred_bonus: 10,
      starts_at: at(29),
      ends_at: at(60)
    })
    expect(overlapping.status).toBe(409)
    expect(overlapping.body.detail).toEqual({
      code: "CAMPAIGN_OVERLAP",
      message: expect.stringContaining(november.body.id)
    })

    // An open-ended campaign overlaps everything after its start.
    const forever = await create(tenant, { name: "Sempre", referrer_bonus: 1, referred_bonus: 1, starts_at: at(-100) })
    expect(forever.status).toBe(409)
    expect(forever.body.detail.code).toBe("CAMPAIGN_OVERLAP")

    const december = await create(tenant, {
      name: "Dezembro",
      referrer_bonus: 10,
      referred_bonus: 10,
      starts_at: at(30),
      ends_at: at(60)
    })
    expect(december.status).toBe(201)
    const stretched = await update(tenant, december.body.id, { starts_at: at(20) })
    expect(stretched.status).toBe(409)
    expect(stretched.body.detail.code).toBe("CAMPAIGN_OVERLAP")
    const opened = await update(tenant, november.body.id, { ends_at: null })
    expect(opened.status).toBe(409)

    const draft = await create(tenant, {
      name: "Rascunho",
      referrer_bonus: 5,
      referred_bonus: 5,
      starts_at: at(10),
      ends_at: at(40),
      active: false
    })
    expect(draft.status).toBe(201)
    const activated = await update(tenant, draft.body.id, { active: true })
    expect(activated.status).toBe(409)
    expect(activated.body.detail.code).toBe("CAMPAIGN_OVERLAP")

    expect(await list(tenant)).toEqual([draft.body, december.body, november.body])

    // Switching the blocker off clears the way.
    expect((await update(tenant, november.body.id, { active: false })).status).toBe(200)
    const nowActive = await update(tenant, draft.body.id, { active: true })
    expect(nowActive.status).toBe(409)
    expect((await update(tenant, draft.body.id, { ends_at: at(30) })).status).toBe(200)
    expect((await update(tenant, draft.body.id, { active: true })).body).toMatchObject({
      active: true,
      status: "scheduled"
    })
  })

  it("lets other tenants use the same window", async () => {
    const one = await createTenant(server)
    const two = await createTenant(server)
    const window = { referrer_bonus: 1, referred_bonus: 1, starts_at: at(0), ends_at: at(7) }
    expect((await create(one, { name: "A", ...window })).status).toBe(201)
    expect((await create(two, { name: "B", ...window })).status).toBe(201)
  })

  it("parallel overlapping creates: exactly one wins", async () => {
    const tenant = await createTenant(server)
    expect(await list(tenant)).toEqual([])
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(tenant, {
          name: `Paralela ${i}`,
          referrer_bonus: i,
          referred_bonus: i,
          starts_at: at(i),
          ends_at: at(i + 30)
        })
      )
    )
    const statuses = results.map((r) => r.status).toSorted()
    expect(statuses).toEqual([201, ...Array(19).fill(409)])
    for (const refused of results.filter((r) => r.status === 409))
      expect(refused.body.detail.code).toBe("CAMPAIGN_OVERLAP")
    const winner = results.find((r) => r.status === 201)!
    expect(await list(tenant)).toEqual([winner.body])
  })

  it("parallel reactivations of overlapping drafts: exactly one wins", async () => {
    const tenant = await createTenant(server)
    const drafts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createCampaign(server, tenant, {
          name: `Draft ${i}`,
          referrer_bonus: 1,
          referred_bonus: 1,
          starts_at: at(0),
          active: false
        })
      )
    )
    const results = await Promise.all(drafts.map((d) => update(tenant, d.id, { active: true })))
    expect(results.map((r) => r.status).toSorted()).toEqual([200, 409, 409, 409, 409])
    expect((await list(tenant)).filter((c) => c["active"])).toHaveLength(1)
  })
})
