import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import type { ClientId, ProgramId } from "../src/ids.js"
import { ClientBehaviorReport } from "../src/metrics/business/client-behavior.js"
import { LoyaltyCardMetricsReport } from "../src/metrics/business/loyalty-cards.js"
import { MetricsOverviewReport } from "../src/metrics/business/overview.js"
import { newEmpresa, TestCore } from "./support.js"

/*
 * Every fact is placed at a local wall time in São Paulo, which has been UTC-3 all year since
 * Brazil dropped daylight saving in 2019, so a local time is the UTC time plus 3 hours. Expected
 * numbers are worked out by hand from the dataset tables below, not by SQL.
 */
const NOW = new Date()
const [Y, M, D] = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" })
  .format(NOW)
  .split("-")
  .map(Number) as [number, number, number]

/** The instant of local time hh:mm, `daysAgo` local days before today. */
const local = (daysAgo: number, hh = 12, mm = 0) => new Date(Date.UTC(Y, M - 1, D - daysAgo, hh + 3, mm)).toISOString()
/** Earlier today (local), whatever the time now: halfway between local midnight and now. */
const earlierToday = new Date((Date.parse(local(0, 0)) + NOW.getTime()) / 2).toISOString()
/** The local calendar date `daysAgo` days before today, as the series labels it. */
const dayLabel = (daysAgo: number) => new Date(Date.UTC(Y, M - 1, D - daysAgo)).toISOString().slice(0, 10)
/** The Monday (local) of the week holding that date. */
const weekLabel = (daysAgo: number) => {
  const day = new Date(Date.UTC(Y, M - 1, D - daysAgo))
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10)
}

/** Every empresa here names its zone, so the dataset's local times do not lean on the default. */
const SAO_PAULO = { timezone: "America/Sao_Paulo" }

interface ClientFields {
  readonly created_at?: string
  readonly balance?: number
  readonly total_earned?: number
  readonly total_spent?: number
}

const insertClient = (empresaId: string, nome: string, fields: ClientFields = {}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: ClientId; user_id: string }>`
      WITH u AS (
        INSERT INTO users (email, nome, referral_code)
        VALUES (${`${randomUUID()}@example.com`}, ${nome}, ${randomUUID().slice(0, 12)})
        RETURNING id
      )
      INSERT INTO clients (empresa_id, user_id, nome, balance, total_earned, total_spent, created_at)
      SELECT ${empresaId}, u.id, ${nome}, ${fields.balance ?? 0}, ${fields.total_earned ?? 0},
             ${fields.total_spent ?? 0}, ${fields.created_at ?? local(100)}
      FROM u
      RETURNING id, user_id`.pipe(Effect.map(([row]) => row!))
  )

const insertProgram = (empresaId: string, name: string, stampsRequired: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: ProgramId }>`
      INSERT INTO loyalty_programs (empresa_id, name, stamps_required, reward_description)
      VALUES (${empresaId}, ${name}, ${stampsRequired}, 'Um café') RETURNING id`.pipe(Effect.map(([row]) => row!.id))
  )

interface CardFields {
  readonly client: string
  readonly program: string
  readonly max: number
  readonly stamps: number
  readonly status: "active" | "completed" | "claimed"
  readonly created_at: string
  readonly completed_at?: string
  readonly claimed_at?: string
  /** [instant, quantity] of each stamp; their quantities need not add up to `stamps` (older ones). */
  readonly log?: ReadonlyArray<readonly [string, number]>
}

const insertCard = (empresaId: string, card: CardFields) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: string }>`
      INSERT INTO loyalty_cards (empresa_id, client_id, program_id, stamps, max_stamps, status,
                                 completed_at, claimed_at, created_at)
      VALUES (${empresaId}, ${card.client}, ${card.program}, ${card.stamps}, ${card.max}, ${card.status},
              ${card.completed_at ?? null}, ${card.claimed_at ?? null}, ${card.created_at})
      RETURNING id`
    for (const [at, quantity] of card.log ?? []) {
      yield* sql`
        INSERT INTO loyalty_stamps (empresa_id, card_id, client_id, program_id, quantity, created_at)
        VALUES (${empresaId}, ${row!.id}, ${card.client}, ${card.program}, ${quantity}, ${at})`
    }
    return row!.id
  })

const insertEvent = (empresaId: string, clientId: string, at: string, points = 0) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO activity_events (empresa_id, client_id, type, title, points, created_at)
      VALUES (${empresaId}, ${clientId}, 'interaction', 'test', ${points}, ${at})`
  )

/** A ledger entry and its timeline event, as every points movement writes them. */
const insertLedger = (empresaId: string, clientId: string, kind: string, points: number, at: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, created_at)
      VALUES (${empresaId}, ${clientId}, ${kind}, ${points}, 0, ${at})`.pipe(
      Effect.zipRight(insertEvent(empresaId, clientId, at, points))
    )
  )

/**
 * The loyalty dataset (today = T, local days; window days=7 is T-6 00:00 .. now):
 *
 * | card | client/program | max | stamps | status    | created    | completed | stamp log (qty)                    |
 * | 1    | Ana / Café     | 5   | 5      | claimed   | T-20 12:00 | T-5 12:00 | 3 @ T-8, 2 @ T-5 12:00             |
 * | 2    | Ana / Café     | 5   | 4      | active    | T-4 12:00  |           | 1 @ T-3 12:00, 3 @ earlier today   |
 * | 3    | Bruno / Café   | 5   | 5      | completed | T-3 12:00  | T-1 22:00 | 2 @ T-3 12:00, 3 @ T-1 22:00       |
 * | 4    | Bruno / Pão    | 3   | 1      | active    | T-10 12:00 |           | 1 @ T-7 23:59 (just before window) |
 * | 5    | Carla / Pão    | 3   | 2      | active    | T-6 00:00  |           | 2 @ T-6 06:00                      |
 * | 6    | Carla / Café   | 5   | 0      | active    | T-30 12:00 |           |                                    |
 *
 * Diego has no card. T-1 22:00 local is 01:00 UTC of day T: it belongs to day T-1 here.
 */
const loyaltyDataset = Effect.gen(function* () {
  const empresa = yield* newEmpresa({ name: "Cafeteria", settings: SAO_PAULO })
  const ana = yield* insertClient(empresa.id, "Ana")
  const bruno = yield* insertClient(empresa.id, "Bruno")
  const carla = yield* insertClient(empresa.id, "Carla")
  yield* insertClient(empresa.id, "Diego")
  const cafe = yield* insertProgram(empresa.id, "Café", 5)
  const pao = yield* insertProgram(empresa.id, "Pão", 3)
  const card = (fields: CardFields) => insertCard(empresa.id, fields)
  yield* card({
    client: ana.id,
    program: cafe,
    max: 5,
    stamps: 5,
    status: "claimed",
    created_at: local(20),
    completed_at: local(5),
    claimed_at: local(4),
    log: [
      [local(8), 3],
      [local(5), 2]
    ]
  })
  yield* card({
    client: ana.id,
    program: cafe,
    max: 5,
    stamps: 4,
    status: "active",
    created_at: local(4),
    log: [
      [local(3), 1],
      [earlierToday, 3]
    ]
  })
  yield* card({
    client: bruno.id,
    program: cafe,
    max: 5,
    stamps: 5,
    status: "completed",
    created_at: local(3),
    completed_at: local(1, 22),
    log: [
      [local(3), 2],
      [local(1, 22), 3]
    ]
  })
  yield* card({
    client: bruno.id,
    program: pao,
    max: 3,
    stamps: 1,
    status: "active",
    created_at: local(10),
    log: [[local(7, 23, 59), 1]]
  })
  yield* card({
    client: carla.id,
    program: pao,
    max: 3,
    stamps: 2,
    status: "active",
    created_at: local(6, 0),
    log: [[local(6, 6), 2]]
  })
  yield* card({ client: carla.id, program: cafe, max: 5, stamps: 0, status: "active", created_at: local(30) })
  return { empresa, ana, bruno, carla, cafe, pao }
})

layer(TestCore, { timeout: 60_000 })("LoyaltyCardMetricsReport.get", (it) => {
  it.effect("computes every field over all programs, by local day", () =>
    Effect.gen(function* () {
      const { empresa, ana, bruno, carla } = yield* loyaltyDataset
      const metrics = yield* LoyaltyCardMetricsReport.get(empresa.id, { days: 7, group_by: "day" })
      expect(metrics).toEqual({
        // Active now: cards 2, 4, 5, 6 with 4 + 1 + 2 + 0 stamps; one stamp from the goal: 2 (4/5) and 5 (2/3).
        cards_active: 4,
        cards_near_completion: 2,
        avg_stamps_per_active_card: 1.75,
        // Created in the window: 2, 3, 5 (5 exactly at its start); completed since: 3 -> 1/3.
        cards_issued: 3,
        completion_rate: 0.3333,
        // Completed in the window: 1 (15 days after issue) and 3 (2 days 10 hours): (15 + 2.41667) / 2.
        cards_completed: 2,
        avg_days_to_complete: 8.71,
        clients_with_card: 3,
        clients_without_card: 1,
        period_days: 7,
        program_id: null,
        program_name: null,
        stamps_by_period: [
          { period: dayLabel(6), stamps: 2, completions: 0 },
          { period: dayLabel(5), stamps: 2, completions: 1 },
          { period: dayLabel(4), stamps: 0, completions: 0 },
          { period: dayLabel(3), stamps: 3, completions: 0 },
          { period: dayLabel(2), stamps: 0, completions: 0 },
          // 22:00 local is already tomorrow in UTC: counted on the local day.
          { period: dayLabel(1), stamps: 3, completions: 1 },
          { period: dayLabel(0), stamps: 3, completions: 0 }
        ],
        top_clients: [
          { client_id: ana.id, name: "Ana", stamps_total: 6, cards_completed: 1 },
          { client_id: bruno.id, name: "Bruno", stamps_total: 5, cards_completed: 1 },
          { client_id: carla.id, name: "Carla", stamps_total: 2, cards_completed: 0 }
        ]
      })
    })
  )

  it.effect("narrows every count to one program", () =>
    Effect.gen(function* () {
      const { empresa, ana, bruno, carla, cafe, pao } = yield* loyaltyDataset
      const coffee = yield* LoyaltyCardMetricsReport.get(empresa.id, { days: 7, group_by: "day", program_id: cafe })
      expect(coffee).toMatchObject({
        cards_active: 2,
        cards_near_completion: 1,
        avg_stamps_per_active_card: 2,
        cards_issued: 2,
        completion_rate: 0.5,
        cards_completed: 2,
        avg_days_to_complete: 8.71,
        clients_with_card: 3,
        clients_without_card: 1,
        program_id: cafe,
        program_name: "Café",
        top_clients: [
          { client_id: ana.id, name: "Ana", stamps_total: 6, cards_completed: 1 },
          { client_id: bruno.id, name: "Bruno", stamps_total: 5, cards_completed: 1 }
        ]
      })
      expect(coffee.stamps_by_period.map((p) => p.stamps)).toEqual([0, 2, 0, 3, 0, 3, 3])

      const bread = yield* LoyaltyCardMetricsReport.get(empresa.id, { days: 7, group_by: "day", program_id: pao })
      expect(bread).toMatchObject({
        cards_active: 2,
        cards_near_completion: 1,
        avg_stamps_per_active_card: 1.5,
        cards_issued: 1,
        completion_rate: 0,
        cards_completed: 0,
        avg_days_to_complete: null,
        clients_with_card: 2,
        clients_without_card: 2,
        program_name: "Pão",
        top_clients: [{ client_id: carla.id, name: "Carla", stamps_total: 2, cards_completed: 0 }]
      })
      expect(bread.stamps_by_period.map((p) => p.stamps)).toEqual([2, 0, 0, 0, 0, 0, 0])
    })
  )

  it.effect("groups by local week and month, zero-filled from the window's first period", () =>
    Effect.gen(function* () {
      const { empresa } = yield* loyaltyDataset
      // In-window stamps by local day: T-6: 2, T-5: 2, T-3: 3, T-1: 3, T: 3.
      const byDay: ReadonlyArray<readonly [number, number]> = [
        [6, 2],
        [5, 2],
        [3, 3],
        [1, 3],
        [0, 3]
      ]
      const expectedWeeks = new Map<string, number>()
      for (let d = 6; d >= 0; d--) expectedWeeks.set(weekLabel(d), 0)
      for (const [d, n] of byDay) expectedWeeks.set(weekLabel(d), expectedWeeks.get(weekLabel(d))! + n)

      const weeks = yield* LoyaltyCardMetricsReport.get(empresa.id, { days: 7, group_by: "week" })
      expect(weeks.stamps_by_period.map((p) => [p.period, p.stamps])).toEqual([...expectedWeeks])
      expect(weeks.stamps_by_period.reduce((n, p) => n + p.completions, 0)).toBe(2)

      const months = yield* LoyaltyCardMetricsReport.get(empresa.id, { days: 60, group_by: "month" })
      const monthsSpanned = new Set(Array.from({ length: 60 }, (_, i) => dayLabel(59 - i).slice(0, 7)))
      expect(months.stamps_by_period.map((p) => p.period)).toEqual([...monthsSpanned])
      // 60 days also take in the stamps of T-8 (3) and T-7 23:59 (1), and every card's issue.
      expect(months.stamps_by_period.reduce((n, p) => n + p.stamps, 0)).toBe(17)
      expect(months).toMatchObject({ cards_issued: 6, completion_rate: 0.3333, cards_completed: 2, period_days: 60 })
    })
  )

  it.effect("answers zeros for an empresa without cards, and 404 for another empresa's program", () =>
    Effect.gen(function* () {
      const { cafe } = yield* loyaltyDataset
      const empty = yield* newEmpresa({ name: "Vazia", settings: SAO_PAULO })
      const metrics = yield* LoyaltyCardMetricsReport.get(empty.id, { days: 3, group_by: "day" })
      expect(metrics).toEqual({
        avg_days_to_complete: null,
        avg_stamps_per_active_card: 0,
        cards_active: 0,
        cards_completed: 0,
        cards_issued: 0,
        cards_near_completion: 0,
        clients_with_card: 0,
        clients_without_card: 0,
        completion_rate: 0,
        period_days: 3,
        program_id: null,
        program_name: null,
        stamps_by_period: [2, 1, 0].map((d) => ({ period: dayLabel(d), stamps: 0, completions: 0 })),
        top_clients: []
      })
      const foreign = yield* Effect.either(
        LoyaltyCardMetricsReport.get(empty.id, { days: 7, group_by: "day", program_id: cafe })
      )
      expect(Either.isLeft(foreign) && foreign.left).toMatchObject({ _tag: "NotFound", resource: "Loyalty program" })
    })
  )
})

layer(TestCore, { timeout: 60_000 })("MetricsOverviewReport.get", (it) => {
  it.effect("counts clients, points, coupons and redemptions in the window and open now", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ name: "Mercado", settings: SAO_PAULO })
      // Clients: created T-40, T-3, earlier today, T-7 23:00 (just before the window), T-50.
      const ana = yield* insertClient(empresa.id, "Ana", { created_at: local(40), balance: 100 })
      const bruno = yield* insertClient(empresa.id, "Bruno", { created_at: local(3), balance: 50 })
      const carla = yield* insertClient(empresa.id, "Carla", { created_at: earlierToday })
      const diego = yield* insertClient(empresa.id, "Diego", { created_at: local(7, 23), balance: 30 })
      yield* insertClient(empresa.id, "Elisa", { created_at: local(50) })

      yield* insertLedger(empresa.id, ana.id, "credit", 100, local(5))
      yield* insertLedger(empresa.id, ana.id, "spend", -40, local(4))
      yield* insertLedger(empresa.id, ana.id, "refund", 10, local(3))
      yield* insertLedger(empresa.id, ana.id, "adjust", -3, local(2))
      yield* insertLedger(empresa.id, bruno.id, "credit", 50, local(1, 22))
      yield* insertLedger(empresa.id, diego.id, "credit", 30, local(8))
      yield* insertLedger(empresa.id, diego.id, "expire", -5, local(2))
      // Carla's only activity is a stamp (an event without points); Elisa has none.
      yield* insertEvent(empresa.id, carla.id, earlierToday)

      const coupon = (
        uid: string,
        fields: { status: string; created: string; expires: string; valor: number; used?: string; cancelled?: string }
      ) =>
        sql`
          INSERT INTO coupons (empresa_id, uid, client_id, kind, points_spent, valor, status, expires_at, used_at,
                               cancelled_at, created_at)
          VALUES (${empresa.id}, ${uid}, ${ana.id}, 'points', 100, ${fields.valor}, ${fields.status}, ${fields.expires},
                  ${fields.used ?? null}, ${fields.cancelled ?? null}, ${fields.created})`
      yield* coupon("AAAAAAA2", { status: "used", created: local(3), used: local(2), expires: local(-20), valor: 10 })
      yield* coupon("AAAAAAA3", { status: "used", created: local(20), used: local(1), expires: local(-5), valor: 5.5 })
      yield* coupon("AAAAAAA4", {
        status: "cancelled",
        created: local(2),
        cancelled: local(1),
        expires: local(-20),
        valor: 2
      })
      yield* coupon("AAAAAAA5", { status: "expired", created: local(30), expires: local(3), valor: 1 })
      // Past its deadline but not swept yet: expired all the same.
      yield* coupon("AAAAAAA6", { status: "active", created: local(25), expires: local(1), valor: 1 })
      yield* coupon("AAAAAAA7", { status: "active", created: local(1), expires: local(-10), valor: 7.25 })
      yield* coupon("AAAAAAA8", { status: "expired", created: local(40), expires: local(10), valor: 1 })
      yield* coupon("AAAAAAA9", { status: "used", created: local(9), used: local(8), expires: local(-1), valor: 3 })

      const [product] = yield* sql<{ id: string }>`
        INSERT INTO products (empresa_id, name, points_cost) VALUES (${empresa.id}, 'Bolo', 100) RETURNING id`
      const [reward] = yield* sql<{ id: string }>`
        INSERT INTO rewards (empresa_id, product_id, pontos_necessarios) VALUES (${empresa.id}, ${product!.id}, 100)
        RETURNING id`
      const redemption = (
        code: string,
        fields: {
          status: string
          created: string
          expires: string
          points: number
          validated?: string
          cancelled?: string
        }
      ) =>
        sql`
          INSERT INTO redemptions (empresa_id, reward_id, client_id, code, points_spent, status, expires_at,
                                   validated_at, cancelled_at, created_at)
          VALUES (${empresa.id}, ${reward!.id}, ${ana.id}, ${code}, ${fields.points}, ${fields.status},
                  ${fields.expires}, ${fields.validated ?? null}, ${fields.cancelled ?? null}, ${fields.created})`
      yield* redemption("R1", {
        status: "validated",
        created: local(3),
        validated: local(2),
        expires: local(-4),
        points: 100
      })
      yield* redemption("R2", {
        status: "cancelled",
        created: local(2),
        cancelled: local(1),
        expires: local(-5),
        points: 50
      })
      yield* redemption("R3", { status: "pending", created: local(10), expires: local(4), points: 20 })
      yield* redemption("R4", { status: "expired", created: local(20), expires: local(12), points: 20 })
      yield* redemption("R5", { status: "pending", created: local(1), expires: local(-6), points: 30 })
      yield* redemption("R6", {
        status: "validated",
        created: local(9),
        validated: local(5),
        expires: local(2),
        points: 40
      })

      const overview = yield* MetricsOverviewReport.get(empresa.id, { days: 7 })
      expect(overview).toEqual({
        period_days: 7,
        from: local(6, 0),
        to: expect.any(String),
        timezone: "America/Sao_Paulo",
        // New: Bruno and Carla (Diego joined an hour before the window). Active: Ana, Bruno, Diego
        // (points movements) and Carla (a stamp).
        clients: { total: 5, new: 2, active: 4 },
        points: { issued: 150, spent: 40, refunded: 10, expired: 5, adjusted: -3, outstanding: 180 },
        // Generated: 2, 4, 7 (10 + 2 + 7.25). Used: 2, 3 (10 + 5.5). Expired: 5 and the unswept 6.
        coupons: {
          generated: 3,
          used: 2,
          expired: 2,
          cancelled: 1,
          active: 1,
          valor_generated: 19.25,
          valor_used: 15.5
        },
        // Made: R1, R2, R5 (R2 refunded: 100 + 30). Validated: R1, R6. Expired: the overdue R3.
        redemptions: { created: 3, validated: 2, cancelled: 1, expired: 1, pending: 1, points_spent: 130 }
      })
      expect(Date.parse(overview.to)).toBeGreaterThanOrEqual(NOW.getTime())
    })
  )

  it.effect("counts a client active when any of its events falls in the window", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ name: "Feira", settings: SAO_PAULO })
      // days=7 starts at local midnight 6 days ago; days=30 at local midnight 29 days ago.
      const start = local(6, 0)
      const justBefore = new Date(Date.parse(start) - 1).toISOString()
      const ana = yield* insertClient(empresa.id, "Ana")
      const bruno = yield* insertClient(empresa.id, "Bruno")
      const carla = yield* insertClient(empresa.id, "Carla")
      const diego = yield* insertClient(empresa.id, "Diego")
      const fabio = yield* insertClient(empresa.id, "Fábio")
      yield* insertClient(empresa.id, "Elisa")
      // Ana: exactly at the start of the 7-day window; Bruno: a millisecond before it.
      yield* insertEvent(empresa.id, ana.id, start)
      yield* insertEvent(empresa.id, bruno.id, justBefore)
      // Carla: several events, the latest earlier today, and an older one written after it.
      for (const at of [local(30), local(3), earlierToday, local(10)]) yield* insertEvent(empresa.id, carla.id, at)
      // Diego: only before the 7-day window.
      for (const at of [local(20), local(8)]) yield* insertEvent(empresa.id, diego.id, at)
      // Fábio: two events in one statement, on either side of the start.
      yield* sql`
        INSERT INTO activity_events (empresa_id, client_id, type, title, created_at)
        VALUES (${empresa.id}, ${fabio.id}, 'purchase', 'test', ${local(2)}),
               (${empresa.id}, ${fabio.id}, 'purchase', 'test', ${justBefore})`
      // Elisa did nothing; a client of another empresa was active today.
      const other = yield* newEmpresa({ name: "Outra feira", settings: SAO_PAULO })
      const stranger = yield* insertClient(other.id, "Gil")
      yield* insertEvent(other.id, stranger.id, earlierToday)

      const active = (days: number) =>
        Effect.map(MetricsOverviewReport.get(empresa.id, { days }), (o) => o.clients.active)
      // Today: Carla. 7 days: Ana, Carla, Fábio. 30 days and a year: also Bruno and Diego.
      expect([yield* active(1), yield* active(7), yield* active(30), yield* active(365)]).toEqual([1, 3, 5, 5])
    })
  )

  it.effect("keeps a client's latest activity when an older event commits after a newer one", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ name: "Concorrida", settings: SAO_PAULO })
      const ana = yield* insertClient(empresa.id, "Ana")
      // On real Postgres the older event's transaction waits for the newer one's lock on Ana's
      // activity, then must not move it back; PGlite, one connection, runs them in turn.
      const inserted = yield* Deferred.make<void>()
      const newer = sql.withTransaction(
        insertEvent(empresa.id, ana.id, earlierToday).pipe(
          Effect.zipRight(Deferred.succeed(inserted, undefined)),
          Effect.zipRight(sql`SELECT pg_sleep(0.3)`)
        )
      )
      const older = Effect.zipRight(
        Deferred.await(inserted),
        sql.withTransaction(insertEvent(empresa.id, ana.id, local(10)))
      )
      yield* Effect.all([newer, older], { concurrency: "unbounded" })
      const today = yield* MetricsOverviewReport.get(empresa.id, { days: 1 })
      expect(today.clients).toEqual({ total: 1, new: 0, active: 1 })
    })
  )
})

layer(TestCore, { timeout: 60_000 })("ClientBehaviorReport.get", (it) => {
  it.effect("aggregates one client's window, with visits on local days", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ name: "Padaria", settings: SAO_PAULO })
      const xavier = yield* insertClient(empresa.id, "Xavier", {
        created_at: local(60),
        balance: 150,
        total_earned: 170,
        total_spent: 20
      })
      const other = yield* insertClient(empresa.id, "Yara")
      // Points: T-5 10:00 and 18:00 (one local day), T-1 22:00 and 23:00 (01:00 and 02:00 UTC of day T), T-9.
      const moves: ReadonlyArray<readonly [string, number, string]> = [
        ["credit", 100, local(5, 10)],
        ["credit", 50, local(5, 18)],
        ["spend", -30, local(1, 22)],
        ["refund", 10, local(1, 23)],
        ["credit", 20, local(9)]
      ]
      for (const [kind, points, at] of moves) yield* insertLedger(empresa.id, xavier.id, kind, points, at)
      // Someone else's activity counts for nobody here.
      yield* insertLedger(empresa.id, other.id, "credit", 999, local(2))

      yield* sql`
        INSERT INTO coupons (empresa_id, uid, client_id, kind, points_spent, valor, status, expires_at, used_at,
                             created_at)
        VALUES (${empresa.id}, 'BBBBBBB2', ${xavier.id}, 'points', 10, 1, 'active', ${local(-20)}, NULL, ${local(2)}),
               (${empresa.id}, 'BBBBBBB3', ${xavier.id}, 'points', 10, 1, 'used', ${local(-5)}, ${local(3)},
                ${local(10)})`

      const referred = (nome: string) =>
        sql<{ id: string }>`
          INSERT INTO users (email, nome, referral_code)
          VALUES (${`${randomUUID()}@example.com`}, ${nome}, ${randomUUID().slice(0, 12)})
          RETURNING id`.pipe(Effect.map(([u]) => u!.id))
      const pending = yield* referred("Zé")
      const done = yield* referred("Wanda")
      yield* sql`
        INSERT INTO referrals (empresa_id, referrer_user_id, referred_user_id, referrer_client_id, status, created_at,
                               completed_at)
        VALUES (${empresa.id}, ${xavier.user_id}, ${pending}, ${xavier.id}, 'pending', ${local(2)}, NULL),
               (${empresa.id}, ${xavier.user_id}, ${done}, ${xavier.id}, 'completed', ${local(20)}, ${local(1)})`

      const cafe = yield* insertProgram(empresa.id, "Café", 3)
      const pao = yield* insertProgram(empresa.id, "Pão", 5)
      yield* insertCard(empresa.id, {
        client: xavier.id,
        program: cafe,
        max: 3,
        stamps: 3,
        status: "completed",
        created_at: local(12),
        completed_at: local(4),
        log: [
          [local(11), 1],
          [local(4), 2]
        ]
      })
      yield* insertCard(empresa.id, {
        client: xavier.id,
        program: pao,
        max: 5,
        stamps: 1,
        status: "active",
        created_at: earlierToday,
        log: [[earlierToday, 1]]
      })
      yield* insertEvent(empresa.id, xavier.id, earlierToday)

      const behavior = yield* ClientBehaviorReport.get(empresa.id, { client_id: xavier.id, days: 7 })
      expect(behavior).toEqual({
        client_id: xavier.id,
        nome: "Xavier",
        client_since: local(60),
        period_days: 7,
        from: local(6, 0),
        to: expect.any(String),
        timezone: "America/Sao_Paulo",
        last_activity_at: earlierToday,
        // Local days T-5, T-1 and T: in UTC the T-1 evening would fall on day T.
        visits: 3,
        avg_points_per_visit: 50,
        points: { earned: 150, spent: 30, refunded: 10, expired: 0, balance: 150, total_earned: 170, total_spent: 20 },
        coupons: { generated: 1, used: 1, active: 1 },
        referrals: { made: 1, completed: 1 },
        loyalty: { stamps: 3, cards_completed: 1, open_cards: 1, rewards_to_claim: 1 }
      })

      const quiet = yield* ClientBehaviorReport.get(empresa.id, { client_id: other.id, days: 1 })
      expect(quiet).toMatchObject({
        visits: 0,
        avg_points_per_visit: 0,
        last_activity_at: local(2),
        points: { earned: 0, spent: 0, refunded: 0, expired: 0, balance: 0, total_earned: 0, total_spent: 0 },
        coupons: { generated: 0, used: 0, active: 0 },
        referrals: { made: 0, completed: 0 },
        loyalty: { stamps: 0, cards_completed: 0, open_cards: 0, rewards_to_claim: 0 }
      })

      const stranger = yield* newEmpresa({ name: "Outra", settings: SAO_PAULO })
      const foreign = yield* Effect.either(ClientBehaviorReport.get(stranger.id, { client_id: xavier.id, days: 7 }))
      expect(Either.isLeft(foreign) && foreign.left).toMatchObject({ _tag: "NotFound", resource: "Client" })
    })
  )
})
