import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { EmpresaId } from "../src/ids.js"
import { EngagementMetrics } from "../src/metrics/engagement/service.js"
import { Quests } from "../src/quests/service.js"
import { customQuest, newClient, newEmpresa, TestCore } from "./support.js"

/**
 * Each metric on a small dataset built by hand at controlled instants; the expected numbers are
 * worked out in the comments, never by the SQL under test.
 */

const SAO_PAULO = "America/Sao_Paulo"
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** An instant `ms` before the test started; every fact is placed relative to it. */
const started = Date.now()
const ago = (ms: number) => new Date(started - ms).toISOString()

// --- calendar arithmetic in JS, independent of the database ----------------------------------

const localDate = (instant: Date | string, timeZone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(instant)
  )

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)

/** The Monday of a date's week. */
const mondayOf = (date: string) => addDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7))

/** Every period label of a `days` window ending today, oldest first. */
const labels = (days: number, groupBy: "day" | "week" | "month", timeZone = SAO_PAULO) => {
  const today = localDate(new Date(), timeZone)
  const dates = Array.from({ length: days }, (_, i) => addDays(today, i - days + 1))
  const key = { day: (d: string) => d, week: mondayOf, month: (d: string) => d.slice(0, 7) }[groupBy]
  return [...new Set(dates.map(key))]
}

/** A zero-filled series with the given periods set. */
const series = <T extends object>(all: ReadonlyArray<string>, empty: T, set: Record<string, Partial<T>>) =>
  all.map((period) => ({ period, ...empty, ...set[period] }))

/** The periods of a quest series that have responses. */
const busyPeriods = (m: { responses_by_period: ReadonlyArray<{ period: string; responses: number }> }) =>
  m.responses_by_period.filter((p) => p.responses > 0).map((p) => p.period)

// --- fixtures ---------------------------------------------------------------------------------

type Person = Effect.Effect.Success<ReturnType<typeof newClient>>

interface ReferralFact {
  readonly referrer: Person
  readonly referred: Person
  readonly createdAt: string
  readonly completedAt?: string
  readonly campaignId?: string
  readonly bonuses?: readonly [number | null, number | null]
}

const insertReferral = (empresaId: string, r: ReferralFact) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO referrals (empresa_id, referrer_user_id, referred_user_id, referrer_client_id, referred_client_id,
                             status, campaign_id, referrer_bonus, referred_bonus, created_at, completed_at)
      VALUES (${empresaId}, ${r.referrer.userId}, ${r.referred.userId}, ${r.referrer.id}, ${r.referred.id},
              ${r.completedAt ? "completed" : "pending"}, ${r.campaignId ?? null},
              ${r.bonuses?.[0] ?? null}, ${r.bonuses?.[1] ?? null}, ${r.createdAt}, ${r.completedAt ?? null})`
  )

const insertCampaign = (empresaId: string, name: string, startsAt: string, endsAt: string | null, active = true) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`
      INSERT INTO referral_campaigns (empresa_id, name, referrer_bonus, referred_bonus, starts_at, ends_at, active)
      VALUES (${empresaId}, ${name}, 100, 50, ${startsAt}, ${endsAt}, ${active})
      RETURNING id`.pipe(Effect.map(([row]) => row!.id))
  )

const newQuest = (empresaId: EmpresaId, name: string) =>
  Effect.map(
    Quests.create(
      empresaId,
      customQuest(name, {
        research: { fields: [{ id: "csat", type: "rating", label: "Nota", required: true, min: 1, max: 5 }] }
      })
    ),
    (quest) => quest.id
  )

interface ResponseFact {
  readonly csat: number | null
  readonly nps: number | null
  readonly at: string
  readonly name?: string
  readonly phone?: string
  readonly alert?: boolean
}

const insertResponse = (empresaId: string, questId: string, r: ResponseFact) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO quest_responses (empresa_id, quest_id, answers, csat, nps, client_name, client_phone,
                                   low_score_alert_sent, created_at)
      VALUES (${empresaId}, ${questId}, ${JSON.stringify({ csat: r.csat, nps: r.nps })}::jsonb, ${r.csat}, ${r.nps},
              ${r.name ?? null}, ${r.phone ?? null}, ${r.alert ?? false}, ${r.at})`
  )

let accessKeys = 0
interface InvoiceFact {
  readonly client: Person | null
  readonly status: "processing" | "completed" | "failed"
  readonly at: string
  readonly valor?: number
  readonly points?: number
}

const insertInvoice = (empresaId: string, i: InvoiceFact) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const accessKey = `${started}${String(accessKeys++).padStart(6, "0")}`.padStart(44, "3")
    return sql`
      INSERT INTO nfce_invoices (empresa_id, access_key, user_id, client_id, status, valor_total, points_credited,
                                 created_at, completed_at)
      VALUES (${empresaId}, ${accessKey}, ${i.client?.userId ?? null}, ${i.client?.id ?? null}, ${i.status},
              ${i.valor ?? null}, ${i.points ?? null}, ${i.at}, ${i.status === "completed" ? i.at : null})`
  })

// --- tests ------------------------------------------------------------------------------------

layer(TestCore, { timeout: 60_000 })("engagement metrics", (it) => {
  /**
   * Referrals of one empresa, a = Ana, b = Bruno, ... (day = 24 h before the test started):
   *   #1 a->b made 10 d ago, completed 8 d ago (2 d), bonuses 100 + 50, campaign Verão
   *   #2 a->c made  5 d ago, completed 2 d ago (3 d), bonuses 100 + 50, campaign Natal
   *   #3 a->d made  3 d ago, pending
   *   #4 b->e made 20 d ago, completed 18.5 d ago (1.5 d), bonuses 200 + null, campaign Primavera
   *   #5 c->f made 40 d ago (outside 30 d), completed 1 d ago, bonuses 80 + 40, campaign Natal
   *   #6 b->g made  1 d ago, pending
   * Campaigns: Primavera [60 d, 15 d), Verão [15 d, 3 d), Natal [3 d, open), Antiga [200 d, 100 d),
   * Rascunho (inactive) [5 d, open).
   */
  const referralDataset = Effect.gen(function* () {
    const empresa = yield* newEmpresa()
    const [a, b, c, d, e, f, g] = yield* Effect.all(
      ["Ana", "Bruno", "Carla", "Davi", "Eva", "Fábio", "Gabi"].map((nome) => newClient(empresa.id, nome))
    )
    const primavera = yield* insertCampaign(empresa.id, "Primavera", ago(60 * DAY), ago(15 * DAY))
    const verao = yield* insertCampaign(empresa.id, "Verão", ago(15 * DAY), ago(3 * DAY))
    const natal = yield* insertCampaign(empresa.id, "Natal", ago(3 * DAY), null)
    yield* insertCampaign(empresa.id, "Antiga", ago(200 * DAY), ago(100 * DAY))
    yield* insertCampaign(empresa.id, "Rascunho", ago(5 * DAY), null, false)
    const facts: ReferralFact[] = [
      {
        referrer: a!,
        referred: b!,
        createdAt: ago(10 * DAY),
        completedAt: ago(8 * DAY),
        bonuses: [100, 50],
        campaignId: verao
      },
      {
        referrer: a!,
        referred: c!,
        createdAt: ago(5 * DAY),
        completedAt: ago(2 * DAY),
        bonuses: [100, 50],
        campaignId: natal
      },
      { referrer: a!, referred: d!, createdAt: ago(3 * DAY) },
      {
        referrer: b!,
        referred: e!,
        createdAt: ago(20 * DAY),
        completedAt: ago(18.5 * DAY),
        bonuses: [200, null],
        campaignId: primavera
      },
      {
        referrer: c!,
        referred: f!,
        createdAt: ago(40 * DAY),
        completedAt: ago(1 * DAY),
        bonuses: [80, 40],
        campaignId: natal
      },
      { referrer: b!, referred: g!, createdAt: ago(1 * DAY) }
    ]
    for (const fact of facts) yield* insertReferral(empresa.id, fact)
    return { empresa, a: a!, b: b!, c: c!, campaigns: { primavera, verao, natal } }
  })

  it.effect("referral performance follows the window's referrals to their outcome", () =>
    Effect.gen(function* () {
      const { empresa, a, b, c } = yield* referralDataset
      // Noise in another empresa must not count.
      const other = yield* newEmpresa()
      const [x, y] = yield* Effect.all([newClient(other.id, "X"), newClient(other.id, "Y")])
      yield* insertReferral(other.id, {
        referrer: x!,
        referred: y!,
        createdAt: ago(DAY),
        completedAt: ago(HOUR),
        bonuses: [5, 5]
      })

      const global = yield* EngagementMetrics.referralPerformance(empresa.id, { days: 30 })
      // Made in 30 d: #1 #2 #3 #4 #6 = 5; completed #1 #2 #4 = 3; bonuses 150 + 150 + 200 = 500;
      // days to complete (2 + 3 + 1.5) / 3 = 2.1666...
      expect(global).toEqual({
        client_id: null,
        client_name: null,
        period_days: 30,
        from: expect.any(String),
        to: expect.any(String),
        timezone: SAO_PAULO,
        referrals_made: 5,
        referrals_completed: 3,
        referrals_pending: 2,
        conversion_rate: 0.6,
        bonus_points_paid: 500,
        avg_days_to_complete: 2.17,
        top_referrers: [
          { client_id: a.id, name: "Ana", referrals: 3, completed: 2 },
          { client_id: b.id, name: "Bruno", referrals: 2, completed: 1 }
        ]
      })

      // Ana alone: #1 #2 #3; completed 2 of 3; bonuses 300; (2 + 3) / 2 days.
      expect(yield* EngagementMetrics.referralPerformance(empresa.id, { client_id: a.id, days: 30 })).toMatchObject({
        client_id: a.id,
        client_name: "Ana",
        referrals_made: 3,
        referrals_completed: 2,
        referrals_pending: 1,
        conversion_rate: 0.6667,
        bonus_points_paid: 300,
        avg_days_to_complete: 2.5,
        top_referrers: []
      })

      // Carla's only referral was made before the window.
      expect(yield* EngagementMetrics.referralPerformance(empresa.id, { client_id: c.id, days: 30 })).toMatchObject({
        referrals_made: 0,
        referrals_completed: 0,
        referrals_pending: 0,
        conversion_rate: 0,
        bonus_points_paid: 0,
        avg_days_to_complete: null
      })

      // 7 d: #2 #3 #6; completed #2 only.
      expect(yield* EngagementMetrics.referralPerformance(empresa.id, { days: 7 })).toMatchObject({
        referrals_made: 3,
        referrals_completed: 1,
        conversion_rate: 0.3333,
        bonus_points_paid: 150,
        avg_days_to_complete: 3,
        top_referrers: [
          { client_id: a.id, referrals: 2, completed: 1 },
          { client_id: b.id, referrals: 1, completed: 0 }
        ]
      })

      const foreign = yield* Effect.either(
        EngagementMetrics.referralPerformance(empresa.id, { client_id: x!.id, days: 30 })
      )
      expect(Either.isLeft(foreign) && foreign.left).toMatchObject({ _tag: "NotFound", resource: "Client", id: x!.id })
    })
  )

  it.effect("referral metrics count each event in the period it happened, per campaign", () =>
    Effect.gen(function* () {
      const { empresa, campaigns } = yield* referralDataset
      const metrics = yield* EngagementMetrics.referralMetrics(empresa.id, { days: 30, group_by: "day" })
      const day = (msAgo: number) => localDate(ago(msAgo), SAO_PAULO)
      // Made in the window: #1 #2 #3 #4 #6 = 5. Completed in it: #1 (8 d), #2 (2 d), #4 (18.5 d)
      // and #5 (1 d, made 40 d ago) = 4; bonuses 150 + 150 + 200 + 120 = 620.
      const expected: Record<string, { referrals?: number; completed?: number; bonus_points?: number }> = {}
      const add = (msAgo: number, delta: { referrals?: number; completed?: number; bonus_points?: number }) => {
        const entry = (expected[day(msAgo)] ??= {})
        entry.referrals = (entry.referrals ?? 0) + (delta.referrals ?? 0)
        entry.completed = (entry.completed ?? 0) + (delta.completed ?? 0)
        entry.bonus_points = (entry.bonus_points ?? 0) + (delta.bonus_points ?? 0)
      }
      for (const made of [10, 5, 3, 20, 1]) add(made * DAY, { referrals: 1 })
      add(8 * DAY, { completed: 1, bonus_points: 150 })
      add(2 * DAY, { completed: 1, bonus_points: 150 })
      add(18.5 * DAY, { completed: 1, bonus_points: 200 })
      add(1 * DAY, { completed: 1, bonus_points: 120 })
      expect(metrics).toEqual({
        period_days: 30,
        from: expect.any(String),
        to: expect.any(String),
        timezone: SAO_PAULO,
        group_by: "day",
        referrals: 5,
        completed: 4,
        bonus_points: 620,
        referrals_by_period: series(labels(30, "day"), { referrals: 0, completed: 0, bonus_points: 0 }, expected),
        // Newest start first; Antiga ended before the window and Rascunho is inactive, both idle.
        campaigns: [
          // #2 made in the window; #2 and #5 completed in it (120 + 150).
          { campaign_id: campaigns.natal, name: "Natal", referrals: 1, completed: 2, bonus_points: 270 },
          { campaign_id: campaigns.verao, name: "Verão", referrals: 1, completed: 1, bonus_points: 150 },
          { campaign_id: campaigns.primavera, name: "Primavera", referrals: 1, completed: 1, bonus_points: 200 }
        ]
      })

      // 7 d: made #2 #3 #6, completed #2 #5. Verão ran in the window (until 3 d ago) with nothing
      // of its own there, and still shows; Primavera ended 15 d ago and does not.
      const week = yield* EngagementMetrics.referralMetrics(empresa.id, { days: 7, group_by: "month" })
      expect(week).toMatchObject({ referrals: 3, completed: 2, bonus_points: 270, group_by: "month" })
      expect(week.campaigns).toEqual([
        { campaign_id: campaigns.natal, name: "Natal", referrals: 1, completed: 2, bonus_points: 270 },
        { campaign_id: campaigns.verao, name: "Verão", referrals: 0, completed: 0, bonus_points: 0 }
      ])
      expect(week.referrals_by_period.map((p) => p.period)).toEqual(labels(7, "month"))
      expect(week.referrals_by_period.reduce((n, p) => n + p.referrals, 0)).toBe(3)
    })
  )

  it.effect("quest metrics: CSAT, NPS, contact capture and alerts, globally and per quest", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const balcao = yield* newQuest(empresa.id, "Balcão")
      const delivery = yield* newQuest(empresa.id, "Delivery")
      const facts: Array<[string, ResponseFact]> = [
        [balcao, { csat: 5, nps: 10, at: ago(2 * DAY), name: "Ana" }],
        [balcao, { csat: 4, nps: 9, at: ago(2 * DAY) }],
        [balcao, { csat: 2, nps: 3, at: ago(5 * DAY), phone: "11987654321", alert: true }],
        [balcao, { csat: null, nps: 8, at: ago(5 * DAY) }],
        [balcao, { csat: 1, nps: null, at: ago(40 * DAY), name: "Velho", phone: "11912345678", alert: true }],
        [delivery, { csat: 3, nps: 7, at: ago(10 * DAY) }],
        [delivery, { csat: 5, nps: 9, at: ago(10 * DAY) }]
      ]
      for (const [quest, fact] of facts) yield* insertResponse(empresa.id, quest, fact)

      // 30 d: 6 responses (the 40 d one is out). CSAT 5, 4, 2, 3, 5: 5 answers, 19 / 5 = 3.8.
      // NPS 10, 9, 3, 8, 7, 9: promoters 3, passives 2, detractors 1: (3 - 1) / 6 = 33.3.
      // Contacts: Ana's name, the 11987654321 phone: 2 / 6. One alert in the window.
      const day = (msAgo: number) => localDate(ago(msAgo), SAO_PAULO)
      const all = yield* EngagementMetrics.questMetrics(empresa.id, { days: 30, group_by: "day" })
      expect(all).toEqual({
        quest_id: null,
        quest_name: null,
        period_days: 30,
        from: expect.any(String),
        to: expect.any(String),
        timezone: SAO_PAULO,
        group_by: "day",
        responses: 6,
        csat_responses: 5,
        csat_avg: 3.8,
        csat_distribution: [
          { score: 1, count: 0 },
          { score: 2, count: 1 },
          { score: 3, count: 1 },
          { score: 4, count: 1 },
          { score: 5, count: 2 }
        ],
        nps_responses: 6,
        nps_score: 33.3,
        promoters: 3,
        passives: 2,
        detractors: 1,
        contacts_captured: 2,
        contact_capture_rate: 0.3333,
        low_score_alerts_sent: 1,
        responses_by_period: series(
          labels(30, "day"),
          { responses: 0, csat_avg: null as number | null, nps: null as number | null },
          {
            // CSAT (5 + 4) / 2; NPS two promoters of two.
            [day(2 * DAY)]: { responses: 2, csat_avg: 4.5, nps: 100 },
            // CSAT 2 alone (the other has none); NPS 3 and 8: (0 - 1) / 2.
            [day(5 * DAY)]: { responses: 2, csat_avg: 2, nps: -50 },
            // CSAT (3 + 5) / 2; NPS 7 and 9: (1 - 0) / 2.
            [day(10 * DAY)]: { responses: 2, csat_avg: 4, nps: 50 }
          }
        )
      })

      // Balcão: 4 responses; CSAT 5, 4, 2: 11 / 3 = 3.67; NPS 10, 9, 3, 8: (2 - 1) / 4 = 25.
      const one = yield* EngagementMetrics.questMetrics(empresa.id, { quest_id: balcao, days: 30, group_by: "week" })
      expect(one).toMatchObject({
        quest_id: balcao,
        quest_name: "Balcão",
        responses: 4,
        csat_responses: 3,
        csat_avg: 3.67,
        nps_responses: 4,
        nps_score: 25,
        promoters: 2,
        passives: 1,
        detractors: 1,
        contacts_captured: 2,
        contact_capture_rate: 0.5,
        low_score_alerts_sent: 1
      })
      expect(one.csat_distribution.map((d) => d.count)).toEqual([0, 1, 0, 1, 1])
      expect(one.responses_by_period.map((p) => p.period)).toEqual(labels(30, "week"))
      const weekOf = (msAgo: number) => mondayOf(day(msAgo))
      const perWeek: Record<string, number> = {}
      for (const msAgo of [2 * DAY, 2 * DAY, 5 * DAY, 5 * DAY])
        perWeek[weekOf(msAgo)] = (perWeek[weekOf(msAgo)] ?? 0) + 1
      expect(
        Object.fromEntries(one.responses_by_period.filter((p) => p.responses > 0).map((p) => [p.period, p.responses]))
      ).toEqual(perWeek)

      // The 40 d response is inside a 60 d window.
      expect(
        yield* EngagementMetrics.questMetrics(empresa.id, { quest_id: balcao, days: 60, group_by: "month" })
      ).toMatchObject({
        responses: 5,
        csat_avg: 3,
        contacts_captured: 3,
        low_score_alerts_sent: 2
      })

      const other = yield* newEmpresa()
      const foreign = yield* newQuest(other.id, "Alheia")
      const refused = yield* Effect.either(
        EngagementMetrics.questMetrics(empresa.id, { quest_id: foreign, days: 30, group_by: "day" })
      )
      expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "NotFound", resource: "Quest", id: foreign })
      // The other empresa sees none of these responses.
      expect(yield* EngagementMetrics.questMetrics(other.id, { days: 30, group_by: "day" })).toMatchObject({
        responses: 0,
        csat_avg: null,
        nps_score: null
      })
    })
  )

  it.effect("NFC-e metrics: volume by status, value, points and recurrence", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa()
      const [a, b, c] = yield* Effect.all(["Ana", "Bruno", "Carla"].map((nome) => newClient(empresa.id, nome)))
      const facts: InvoiceFact[] = [
        { client: a!, status: "completed", at: ago(1 * DAY), valor: 100, points: 100 },
        { client: a!, status: "completed", at: ago(3 * DAY), valor: 50.5, points: 50 },
        { client: b!, status: "completed", at: ago(3 * DAY), valor: 20.25, points: 20 },
        { client: b!, status: "failed", at: ago(3 * DAY) },
        { client: c!, status: "processing", at: ago(HOUR) },
        { client: c!, status: "completed", at: ago(40 * DAY), valor: 80, points: 80 },
        { client: null, status: "completed", at: ago(2 * DAY), valor: 10, points: 10 }
      ]
      for (const fact of facts) yield* insertInvoice(empresa.id, fact)
      const other = yield* newEmpresa()
      yield* insertInvoice(other.id, { client: null, status: "completed", at: ago(HOUR), valor: 999, points: 999 })

      // 30 d: 6 scanned (the 40 d one is out): 1 processing, 4 completed, 1 failed.
      // Value 100 + 50.5 + 20.25 + 10 = 180.75 over 4: 45.1875. Clients with a completed invoice:
      // Ana (2) and Bruno (1); the anonymous one has none. Recurring: Ana. 3 invoices / 2 clients.
      const day = (msAgo: number) => localDate(ago(msAgo), SAO_PAULO)
      const expected: Record<
        string,
        { scanned: number; completed: number; total_valor: number; points_credited: number }
      > = {}
      const add = (msAgo: number, completed: boolean, valor: number) => {
        const entry = (expected[day(msAgo)] ??= { scanned: 0, completed: 0, total_valor: 0, points_credited: 0 })
        entry.scanned += 1
        if (completed) {
          entry.completed += 1
          entry.total_valor += valor
          entry.points_credited += Math.floor(valor)
        }
      }
      add(1 * DAY, true, 100)
      add(3 * DAY, true, 50.5)
      add(3 * DAY, true, 20.25)
      add(3 * DAY, false, 0)
      add(HOUR, false, 0)
      add(2 * DAY, true, 10)
      expect(yield* EngagementMetrics.nfceMetrics(empresa.id, { days: 30, group_by: "day" })).toEqual({
        period_days: 30,
        from: expect.any(String),
        to: expect.any(String),
        timezone: SAO_PAULO,
        group_by: "day",
        invoices_scanned: 6,
        invoices_processing: 1,
        invoices_completed: 4,
        invoices_failed: 1,
        conversion_rate: 0.6667,
        total_valor: 180.75,
        points_credited: 180,
        avg_ticket: 45.19,
        unique_clients: 2,
        recurring_clients: 1,
        recurrence_rate: 0.5,
        avg_invoices_per_client: 1.5,
        invoices_by_period: series(
          labels(30, "day"),
          { scanned: 0, completed: 0, total_valor: 0, points_credited: 0 },
          expected
        )
      })

      // 60 d adds Carla's old invoice: 3 clients, still one recurring; 4 invoices / 3 clients.
      expect(yield* EngagementMetrics.nfceMetrics(empresa.id, { days: 60, group_by: "month" })).toMatchObject({
        invoices_scanned: 7,
        invoices_completed: 5,
        total_valor: 260.75,
        unique_clients: 3,
        recurring_clients: 1,
        recurrence_rate: 0.3333,
        avg_invoices_per_client: 1.33
      })

      // An empresa without invoices: zeros, and null averages.
      expect(
        yield* EngagementMetrics.nfceMetrics((yield* newEmpresa()).id, { days: 1, group_by: "day" })
      ).toMatchObject({
        invoices_scanned: 0,
        conversion_rate: 0,
        total_valor: 0,
        avg_ticket: null,
        unique_clients: 0,
        recurrence_rate: 0,
        avg_invoices_per_client: null,
        invoices_by_period: [
          { period: localDate(new Date(), SAO_PAULO), scanned: 0, completed: 0, total_valor: 0, points_credited: 0 }
        ]
      })
    })
  )

  it.effect("periods and the window follow the empresa's time zone", () =>
    Effect.gen(function* () {
      // 01:00 UTC yesterday is 22:00 of the day before in São Paulo (UTC-3, no DST since 2019).
      const yesterdayUtc = new Date(started - DAY).toISOString().slice(0, 10)
      const lateEvening = `${yesterdayUtc}T01:00:00.000Z`
      const paulista = yield* newEmpresa()
      const londrina = yield* newEmpresa({ settings: { timezone: "UTC" } })
      for (const empresa of [paulista, londrina]) {
        const quest = yield* newQuest(empresa.id, "Pesquisa")
        yield* insertResponse(empresa.id, quest, { csat: 4, nps: 9, at: lateEvening })
      }
      const sp = yield* EngagementMetrics.questMetrics(paulista.id, { days: 7, group_by: "day" })
      const utc = yield* EngagementMetrics.questMetrics(londrina.id, { days: 7, group_by: "day" })
      expect(busyPeriods(sp)).toEqual([addDays(yesterdayUtc, -1)])
      expect(busyPeriods(utc)).toEqual([yesterdayUtc])
      expect(utc.timezone).toBe("UTC")

      // The window starts at local midnight: one day in São Paulo begins at 03:00 UTC.
      const today = localDate(new Date(), SAO_PAULO)
      const midnight = new Date(`${today}T03:00:00.000Z`).toISOString()
      const quest = yield* newQuest(paulista.id, "Fronteira")
      yield* insertResponse(paulista.id, quest, {
        csat: 1,
        nps: 0,
        at: new Date(Date.parse(midnight) - 1000).toISOString()
      })
      yield* insertResponse(paulista.id, quest, { csat: 5, nps: 10, at: midnight })
      const oneDay = yield* EngagementMetrics.questMetrics(paulista.id, { quest_id: quest, days: 1, group_by: "day" })
      expect(oneDay).toMatchObject({ from: midnight, responses: 1, csat_avg: 5, nps_score: 100 })
      expect(oneDay.responses_by_period).toEqual([{ period: today, responses: 1, csat_avg: 5, nps: 100 }])
      const twoDays = yield* EngagementMetrics.questMetrics(paulista.id, { quest_id: quest, days: 2, group_by: "day" })
      expect(twoDays).toMatchObject({ from: new Date(Date.parse(midnight) - DAY).toISOString(), responses: 2 })
    })
  )
})
