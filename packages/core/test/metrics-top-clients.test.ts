import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CardId, type ProgramId } from "../src/ids.js"
import { LoyaltyCards } from "../src/loyalty/service.js"
import { LoyaltyCardMetricsReport } from "../src/metrics/business/loyalty-cards.js"
import { newClient, newEmpresa, TestCore } from "./support.js"

/*
 * The loyalty-card report ranks its top clients from their lifetime stamps (migration 0020) where
 * that reads less than the window's stamps. Each ranking is compared here with the one grouped
 * from the stamp log itself, over 36 clients whose cards fill, complete and are claimed in cycles
 * across 400 days, for two programs, with many ties (in stamps, and in stamps and completions),
 * leaders whose stamps are all before the window or partly after its end, stamps written one at a
 * time through the service, and history moved back in time as the demo tenant does.
 */

const ZONES = ["Asia/Kathmandu", "America/Sao_Paulo"] as const
const WINDOWS = [1, 2, 7, 30, 90, 200, 365] as const
const DAY = 86_400

interface Card {
  readonly id: string
  readonly client: string
  readonly program: ProgramId
  readonly max: number
  stamps: number
  completed: number | null
  readonly created: number
  readonly log: Array<readonly [at: number, quantity: number]>
}

/**
 * Client `i`'s stamps of a program, as seconds from now and quantities. Most clients share a few
 * rhythms (so many tie); some stamp Pão only long ago (lifetime leaders with nothing in the year),
 * some once in the coming hours. Twelve stamp Café 40 times, one at a time, within the year: for a
 * year of Café they are the lifetime leaders, all tied with what they stamped in the window, so
 * the bound the ranking starts from is reached exactly.
 */
const history = (i: number, program: number): Array<readonly [number, number]> => {
  const block = program === 0 && i >= 20 && i < 32
  const old = program === 1 && i % 9 === 0
  const count = block ? 40 : old ? 30 : [0, 4, 9, 9, 14, 23][(i + program) % 6]!
  const spacing = block ? 7 * DAY : (1 + ((i * 3 + program) % 4) * 6) * DAY
  const start = old ? -399 * DAY : -spacing * count - (i % 3) * 3_601
  return Array.from({ length: count }, (_, k) => {
    const at = old ? start + k * 3 * DAY : start + k * spacing + (i % 5) * 7_777
    const future = !block && i % 7 === 3 && k === count - 1
    return [future ? 2 * 3_600 : at, block ? 1 : 1 + ((i + k) % 3 === 0 ? 1 : 0)] as const
  })
}

/** Fills cards in turn: a full card is claimed an hour after the stamp that completed it. */
const cardsOf = (client: string, program: ProgramId, max: number, log: ReadonlyArray<readonly [number, number]>) => {
  const cards: Card[] = []
  const open = (created: number): Card => {
    const card = { id: randomUUID(), client, program, max, stamps: 0, completed: null, created, log: [] }
    cards.push(card)
    return card
  }
  let card = open((log[0]?.[0] ?? 0) - DAY)
  for (const [at, wanted] of log) {
    const quantity = Math.min(wanted, card.max - card.stamps)
    card.log.push([at, quantity])
    card.stamps += quantity
    if (card.stamps === card.max) {
      card.completed = at
      card = open(at + 3_600)
    }
  }
  return cards
}

/** An instant `seconds` from now (null stays null). */
const at = (seconds: number | null) => (seconds === null ? null : new Date(Date.now() + seconds * 1000))

const dataset = (timezone: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const empresa = yield* newEmpresa({ settings: { timezone } })
    const programs = yield* sql<{ id: ProgramId; max: number }>`
      INSERT INTO loyalty_programs (empresa_id, name, stamps_required, reward_description)
      VALUES (${empresa.id}, 'Café', 10, 'Um café'), (${empresa.id}, 'Pão', 4, 'Um pão')
      RETURNING id, stamps_required AS max`
    const cards: Card[] = []
    for (let i = 0; i < 36; i++) {
      const client = yield* newClient(empresa.id, `Cliente ${i}`)
      programs.forEach(({ id, max }, p) => cards.push(...cardsOf(client.id, id, max, history(i, p))))
    }
    for (const card of cards) {
      const status = card.completed === null ? "active" : "claimed"
      yield* sql`
        INSERT INTO loyalty_cards (empresa_id, id, client_id, program_id, stamps, max_stamps, status,
                                   completed_at, claimed_at, created_at)
        VALUES (${empresa.id}, ${card.id}, ${card.client}, ${card.program}, ${card.stamps}, ${card.max}, ${status},
                ${at(card.completed)}, ${at(card.completed === null ? null : card.completed + 3_600)},
                ${at(card.created)})`
    }
    // One statement: the trigger totals a bulk insert of many clients and programs at once.
    const log = cards.flatMap((card) => card.log.map(([when, quantity]) => ({ card, when, quantity })))
    yield* sql`
      INSERT INTO loyalty_stamps (empresa_id, card_id, client_id, program_id, quantity, created_at)
      SELECT ${empresa.id}, c.id, c.client_id, c.program_id, s.quantity, s.created_at
      FROM unnest(${log.map(({ card }) => card.id)}::uuid[], ${log.map(({ quantity }) => quantity)}::int[],
                  ${log.map(({ when }) => at(when)!.toISOString())}::timestamptz[]) AS s(card_id, quantity, created_at)
      JOIN loyalty_cards c ON c.empresa_id = ${empresa.id} AND c.id = s.card_id`
    // And one stamp per statement, concurrent, through the service: six clients' open cards.
    const open = cards.filter((card) => card.completed === null && card.max - card.stamps >= 2).slice(0, 6)
    yield* Effect.all(
      open.flatMap((card) =>
        [1, 1].map((quantity) => LoyaltyCards.stamp(empresa.id, { card_id: CardId.parse(card.id), quantity }))
      ),
      { concurrency: "unbounded" }
    )
    return { empresaId: empresa.id, programs: programs.map(({ id }) => id) }
  })

/** The lifetime totals that differ from the stamp log's, per program and over every program. */
const totalsMismatches = (empresaId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ mismatches: number; rows: number }>`
      WITH facts AS (
        SELECT program_id, client_id, sum(quantity) AS stamps FROM loyalty_stamps WHERE empresa_id = ${empresaId}
        GROUP BY GROUPING SETS ((program_id, client_id), (client_id))
      ), totals AS (
        SELECT program_id, client_id, stamps FROM loyalty_client_stamps WHERE empresa_id = ${empresaId}
      )
      SELECT (SELECT count(*) FROM totals)::int AS rows,
             (SELECT count(*)
              FROM ((TABLE facts EXCEPT TABLE totals) UNION ALL (TABLE totals EXCEPT TABLE facts)) d)::int
               AS mismatches`
  ).pipe(Effect.map(([row]) => row!))

for (const timezone of ZONES) {
  layer(TestCore, { timeout: 120_000 })(`the loyalty-card top clients in ${timezone}`, (it) => {
    it.effect("the lifetime totals are the stamp log's, after bulk and single stamps and moved history", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { empresaId } = yield* dataset(timezone)
        const before = yield* totalsMismatches(empresaId)
        expect(before.rows).toBeGreaterThan(60)
        expect(before.mismatches).toBe(0)
        yield* sql`
          UPDATE loyalty_stamps SET created_at = created_at - interval '3 days' WHERE empresa_id = ${empresaId}`
        expect(yield* totalsMismatches(empresaId)).toEqual(before)
      })
    )

    it.effect("the ranking is the stamp log's over every window, for every program and each", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { empresaId, programs } = yield* dataset(timezone)
        for (const days of WINDOWS) {
          for (const program_id of [null, ...programs]) {
            const report = yield* LoyaltyCardMetricsReport.get(empresaId, { days, group_by: "day", program_id })
            const facts = yield* sql`
              WITH w AS (
                SELECT (date_trunc('day', now() AT TIME ZONE ${timezone}) - make_interval(days => ${days - 1}))
                         AT TIME ZONE ${timezone} AS starts, now() AS ends
              )
              SELECT s.client_id, c.nome AS name, s.stamps_total::int AS stamps_total,
                     (SELECT count(*) FROM loyalty_cards k
                      WHERE k.empresa_id = ${empresaId} AND k.client_id = s.client_id
                        AND (${program_id}::uuid IS NULL OR k.program_id = ${program_id})
                        AND k.completed_at >= w.starts AND k.completed_at < w.ends)::int AS cards_completed
              FROM w, (SELECT client_id, sum(quantity) AS stamps_total FROM loyalty_stamps, w
                       WHERE empresa_id = ${empresaId} AND (${program_id}::uuid IS NULL OR program_id = ${program_id})
                         AND created_at >= w.starts AND created_at < w.ends
                       GROUP BY client_id) s
              JOIN clients c ON c.empresa_id = ${empresaId} AND c.id = s.client_id
              ORDER BY stamps_total DESC, cards_completed DESC, client_id
              LIMIT 10`
            expect({ days, program_id, top: report.top_clients }).toEqual({ days, program_id, top: [...facts] })
            if (days >= 30) expect(report.top_clients).toHaveLength(10)
          }
        }
      })
    )
  })
}
