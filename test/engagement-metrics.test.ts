import { describe, expect, it } from "vitest"
import {
  call,
  connectMcp,
  createClient,
  createQuest,
  createTenant,
  updateSettings,
  useServer,
  type Tenant
} from "./support/index.js"

/**
 * The HTTP surface of the engagement analytics (referrals, surveys, NFC-e). The numbers themselves
 * are checked on hand-built datasets in packages/core/test/engagement-metrics.test.ts.
 */

const server = useServer()

const BASE = "/api/v1/public"
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const DAY = 86_400_000

/** The last `days` local dates in the time zone, oldest first. */
const lastDays = (days: number, timeZone = "America/Sao_Paulo") =>
  Array.from({ length: days }, (_, i) =>
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
      new Date(Date.now() - (days - 1 - i) * DAY)
    )
  )

const get = (tenant: Tenant, path: string) => call(server, `${BASE}${path}`, { key: tenant.key })

const window = (days = 30) => ({
  period_days: days,
  from: expect.stringMatching(ISO),
  to: expect.stringMatching(ISO),
  timezone: "America/Sao_Paulo"
})

describe("engagement metrics on an empty empresa (defaults: 30 days by day)", () => {
  const allZeros = "get_referral_performance, get_referral_metrics, get_quest_metrics and get_nfce_metrics answer zeros"
  it(allZeros, async () => {
    const tenant = await createTenant(server)
    const days = lastDays(30)

    const performance = await get(tenant, "/referral-performance")
    expect(performance.status).toBe(200)
    expect(performance.body).toEqual({
      client_id: null,
      client_name: null,
      ...window(),
      referrals_made: 0,
      referrals_completed: 0,
      referrals_pending: 0,
      conversion_rate: 0,
      bonus_points_paid: 0,
      avg_days_to_complete: null,
      top_referrers: []
    })
    // The window runs from local midnight 29 days ago until now.
    expect(Date.parse(performance.body.to) - Date.parse(performance.body.from)).toBeGreaterThan(29 * DAY)
    expect(Date.parse(performance.body.to) - Date.parse(performance.body.from)).toBeLessThanOrEqual(30 * DAY)

    const referrals = await get(tenant, "/referrals/metrics")
    expect(referrals.status).toBe(200)
    expect(referrals.body).toEqual({
      ...window(),
      group_by: "day",
      referrals: 0,
      completed: 0,
      bonus_points: 0,
      referrals_by_period: days.map((period) => ({ period, referrals: 0, completed: 0, bonus_points: 0 })),
      campaigns: []
    })

    const quests = await get(tenant, "/quests/metrics")
    expect(quests.status).toBe(200)
    expect(quests.body).toEqual({
      quest_id: null,
      quest_name: null,
      ...window(),
      group_by: "day",
      responses: 0,
      csat_responses: 0,
      csat_avg: null,
      csat_distribution: [1, 2, 3, 4, 5].map((score) => ({ score, count: 0 })),
      nps_responses: 0,
      nps_score: null,
      promoters: 0,
      passives: 0,
      detractors: 0,
      contacts_captured: 0,
      contact_capture_rate: 0,
      low_score_alerts_sent: 0,
      responses_by_period: days.map((period) => ({ period, responses: 0, csat_avg: null, nps: null }))
    })

    const nfce = await get(tenant, "/nfce/metrics")
    expect(nfce.status).toBe(200)
    expect(nfce.body).toEqual({
      ...window(),
      group_by: "day",
      invoices_scanned: 0,
      invoices_processing: 0,
      invoices_completed: 0,
      invoices_failed: 0,
      conversion_rate: 0,
      total_valor: 0,
      points_credited: 0,
      avg_ticket: null,
      unique_clients: 0,
      recurring_clients: 0,
      recurrence_rate: 0,
      avg_invoices_per_client: null,
      invoices_by_period: days.map((period) => ({
        period,
        scanned: 0,
        completed: 0,
        total_valor: 0,
        points_credited: 0
      }))
    })
  })

  it("echoes the client or quest asked for, and groups by week or month", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant, { nome: "Ana Referência" })
    const perClient = await get(tenant, `/referral-performance?client_id=${client.id}&days=7`)
    expect(perClient.status).toBe(200)
    expect(perClient.body).toMatchObject({
      client_id: client.id,
      client_name: "Ana Referência",
      period_days: 7,
      referrals_made: 0,
      top_referrers: []
    })

    const quest = await createQuest(server, tenant, {
      name: "Balcão",
      research: { fields: [{ id: "nota", type: "rating", label: "Nota", min: 1, max: 5 }] }
    })
    const perQuest = await get(tenant, `/quests/metrics?quest_id=${quest.id}&days=365&group_by=month`)
    expect(perQuest.status).toBe(200)
    expect(perQuest.body).toMatchObject({
      quest_id: quest.id,
      quest_name: "Balcão",
      period_days: 365,
      group_by: "month",
      responses: 0
    })
    // 365 local days touch 12 or 13 calendar months, labelled YYYY-MM, oldest first.
    const months = [...new Set(lastDays(365).map((d) => d.slice(0, 7)))]
    expect(perQuest.body.responses_by_period.map((p: { period: string }) => p.period)).toEqual(months)

    const weekly = await get(tenant, "/nfce/metrics?days=14&group_by=week")
    expect(weekly.status).toBe(200)
    const periods = weekly.body.invoices_by_period.map((p: { period: string }) => p.period)
    // Weeks are labelled by their Monday; 14 days span 2 or 3 of them.
    expect(periods.length).toBeGreaterThanOrEqual(2)
    expect(periods.length).toBeLessThanOrEqual(3)
    for (const period of periods) expect(new Date(`${period}T00:00:00Z`).getUTCDay()).toBe(1)

    const daily = await get(tenant, "/referrals/metrics?days=1")
    expect(daily.body.referrals_by_period).toEqual([
      { period: lastDays(1)[0], referrals: 0, completed: 0, bonus_points: 0 }
    ])
  })

  it("uses the empresa's time zone for the window", async () => {
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { timezone: "UTC" })
    const res = await get(tenant, "/quests/metrics?days=1")
    expect(res.body).toMatchObject({ timezone: "UTC", from: `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z` })
  })
})

describe("the metric tools over MCP", () => {
  it("answer what REST answers, and their results validate against the tools' output schemas", async () => {
    const tenant = await createTenant(server)
    const client = await connectMcp(server, tenant.key)
    try {
      const calls: Array<[string, Record<string, unknown>, string]> = [
        ["get_referral_performance", { client_id: null, days: 7 }, "/referral-performance?days=7"],
        ["get_referral_metrics", { days: 7, group_by: "week" }, "/referrals/metrics?days=7&group_by=week"],
        ["get_quest_metrics", { quest_id: null, days: 7 }, "/quests/metrics?days=7"],
        ["get_nfce_metrics", { group_by: "month" }, "/nfce/metrics?group_by=month"]
      ]
      for (const [name, args, path] of calls) {
        // The SDK client checks structuredContent against the tool's outputSchema.
        const result = await client.callTool({ name, arguments: args })
        expect(result.isError, name).toBeFalsy()
        const rest = await get(tenant, path)
        expect({ ...(result.structuredContent as object), to: null }, name).toEqual({ ...rest.body, to: null })
      }
      const refused = await client.callTool({ name: "get_quest_metrics", arguments: { days: 0 } })
      expect(refused.isError).toBe(true)
    } finally {
      await client.close()
    }
  })
})

describe("refusals", () => {
  const ROUTES = ["/referral-performance", "/referrals/metrics", "/quests/metrics", "/nfce/metrics"]
  const SERIES = ["/referrals/metrics", "/quests/metrics", "/nfce/metrics"]

  const badParameters =
    "422 for days out of 1..365 or not a number, an unknown group_by, a bad uuid or an unknown parameter"
  it(badParameters, async () => {
    const tenant = await createTenant(server)
    const cases: Array<[string, unknown[], string]> = []
    for (const route of ROUTES) {
      cases.push([`${route}?days=0`, ["query", "days"], "greater_than_equal"])
      cases.push([`${route}?days=366`, ["query", "days"], "less_than_equal"])
      cases.push([`${route}?days=x`, ["query", "days"], "number_type"])
      cases.push([`${route}?period=7`, ["query", "period"], "extra_forbidden"])
    }
    for (const route of SERIES) cases.push([`${route}?group_by=year`, ["query", "group_by"], "enum"])
    cases.push(["/referral-performance?group_by=day", ["query", "group_by"], "extra_forbidden"])
    cases.push(["/referral-performance?client_id=nope", ["query", "client_id"], "uuid_parsing"])
    cases.push(["/quests/metrics?quest_id=123", ["query", "quest_id"], "uuid_parsing"])
    for (const [path, loc, type] of cases) {
      const res = await get(tenant, path)
      expect(res.status, path).toBe(422)
      expect(res.body.detail, path).toContainEqual({ loc, msg: expect.any(String), type })
    }
  })

  it("404 for another empresa's client or quest, and for one that does not exist", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const theirClient = await createClient(server, other)
    const theirQuests = await get(other, "/quests")
    const theirQuest = theirQuests.body[0].id as string
    const missing = "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b"
    for (const path of [
      `/referral-performance?client_id=${theirClient.id}`,
      `/referral-performance?client_id=${missing}`,
      `/quests/metrics?quest_id=${theirQuest}`,
      `/quests/metrics?quest_id=${missing}`
    ]) {
      const res = await get(tenant, path)
      expect(res.status, path).toBe(404)
      expect(res.body.detail, path).toMatch(/not found/)
    }
    // Their owner sees them.
    expect((await get(other, `/referral-performance?client_id=${theirClient.id}`)).status).toBe(200)
    expect((await get(other, `/quests/metrics?quest_id=${theirQuest}`)).status).toBe(200)
  })

  it("401 without a key, 403 for a plan without API access", async () => {
    const blocked = await createTenant(server, { apiAccess: false })
    for (const route of ROUTES) {
      expect((await call(server, `${BASE}${route}`)).status, route).toBe(401)
      expect((await get(blocked, route)).status, route).toBe(403)
    }
  })
})
