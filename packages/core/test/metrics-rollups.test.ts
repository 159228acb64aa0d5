import { SqlClient, type Statement } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ProgramId } from "../src/ids.js"
import { LoyaltyPrograms } from "../src/loyalty/programs.js"
import { LoyaltyCards } from "../src/loyalty/service.js"
import { LoyaltyCardMetricsReport } from "../src/metrics/business/loyalty-cards.js"
import { MetricsOverviewReport } from "../src/metrics/business/overview.js"
import type { GroupBy } from "../src/metrics/contracts.js"
import { Points } from "../src/points/service.js"
import { newClient, newEmpresa, TestCore } from "./support.js"

/*
 * The reports sum the whole UTC hours of a window from the hourly rollups (migrations 0019, 0021) and
 * the partial hours at its edges from the facts. Each answer is compared here with the same
 * figure recomputed from the facts alone, over facts spread across 40 days at odd instants, on
 * local midnights and UTC hours and a microsecond either side of them, and in the future. The
 * zones: Kathmandu (UTC+5:45), whose local midnights fall mid-hour in UTC, so every window and
 * every day of a series has two partial edges; and São Paulo (UTC-3), whose midnights are on the
 * hour, so only the current hour is read from the facts.
 */

const ZONES = ["Asia/Kathmandu", "America/Sao_Paulo"] as const
const WINDOWS = [1, 2, 7, 30, 365] as const
const GROUPS: ReadonlyArray<GroupBy> = ["day", "week", "month"]

/** Instants around every local midnight of the last 40 days and every UTC hour of the last 3. */
const EDGES = `
  SELECT (date_trunc('day', now() AT TIME ZONE $tz) - make_interval(days => d)) AT TIME ZONE $tz + o AS at
  FROM generate_series(0, 40) d, unnest(ARRAY['-1 microsecond', '0', '1 microsecond', '1 hour']::interval[]) o
  UNION ALL
  SELECT date_trunc('hour', now() - make_interval(hours => h), 'UTC') + o
  FROM generate_series(0, 72) h, unnest(ARRAY['-1 microsecond', '0', '1 microsecond']::interval[]) o`

const dataset = (timezone: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const empresa = yield* newEmpresa({ settings: { timezone } })
    const ana = yield* newClient(empresa.id, "Ana")
    const bruno = yield* newClient(empresa.id, "Bruno")
    const instants = sql.literal(`(${EDGES.replaceAll("$tz", `'${timezone}'`)}
      UNION ALL SELECT now() - make_interval(secs => g * 2357.123457) FROM generate_series(1, 1500) g
      UNION ALL SELECT now() + make_interval(hours => g) FROM generate_series(0, 3) g)`)

    // One statement each: the triggers roll up a bulk insert of many hours at once.
    yield* sql`
      INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, created_at)
      SELECT ${empresa.id}, CASE WHEN n % 2 = 0 THEN ${ana.id}::uuid ELSE ${bruno.id}::uuid END,
             (ARRAY['credit', 'spend', 'refund', 'expire', 'adjust'])[1 + n % 5],
             CASE WHEN n % 5 IN (1, 3) THEN -(n % 97 + 1) ELSE n % 89 + 1 END, 0, at
      FROM (SELECT at, row_number() OVER (ORDER BY at) AS n FROM ${instants} i) f`
    const [cafe, pao] = yield* sql<{ id: ProgramId }>`
      INSERT INTO loyalty_programs (empresa_id, name, stamps_required, reward_description)
      VALUES (${empresa.id}, 'Café', 10, 'Um café'), (${empresa.id}, 'Pão', 5, 'Um pão') RETURNING id`
    yield* sql`
      INSERT INTO loyalty_cards (empresa_id, client_id, program_id, stamps, max_stamps, status, created_at)
      VALUES (${empresa.id}, ${ana.id}, ${cafe!.id}, 0, 10, 'active', now() - interval '400 days'),
             (${empresa.id}, ${bruno.id}, ${pao!.id}, 0, 5, 'active', now() - interval '400 days')`
    yield* sql`
      INSERT INTO loyalty_stamps (empresa_id, card_id, client_id, program_id, quantity, created_at)
      SELECT c.empresa_id, c.id, c.client_id, c.program_id, 1 + n % 3, at
      FROM (SELECT at, row_number() OVER (ORDER BY at) AS n FROM ${instants} i) f
      JOIN loyalty_cards c
        ON c.empresa_id = ${empresa.id}
       AND c.client_id = (CASE WHEN n % 3 = 0 THEN ${ana.id}::uuid ELSE ${bruno.id}::uuid END)`

    // Clients joining at the same instants, in one statement.
    yield* sql`
      WITH f AS (SELECT at, row_number() OVER (ORDER BY at) AS n FROM ${instants} i),
      u AS (
        INSERT INTO users (email, nome, referral_code)
        SELECT ${empresa.id} || '-' || n || '@example.com', 'Cliente ' || n, md5(${empresa.id} || n) FROM f
        RETURNING id, nome
      )
      INSERT INTO clients (empresa_id, user_id, nome, balance, created_at)
      SELECT ${empresa.id}, u.id, u.nome, f.n % 7, f.at FROM u JOIN f ON u.nome = 'Cliente ' || f.n`

    // And one fact per transaction, concurrent on a real server: each adds to a current hour's row.
    yield* Effect.all(
      Array.from({ length: 20 }, (_, i) =>
        Points.credit(empresa.id, { client_id: i % 2 ? ana.id : bruno.id, points: i + 1 })
      ),
      { concurrency: "unbounded" }
    )
    return { empresaId: empresa.id, cafe: cafe!.id, pao: pao!.id }
  })

const windowStart = (timezone: string, days: number) =>
  `(date_trunc('day', now() AT TIME ZONE '${timezone}') - make_interval(days => ${days - 1}))` +
  ` AT TIME ZONE '${timezone}'`

/** How many rows the facts' sums by hour and the rollup's have, and how many differ. */
const compare = (facts: Statement.Fragment, rolled: Statement.Fragment) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ hours: number; mismatches: number }>`
      WITH facts AS (${facts}), rolled AS (${rolled})
      SELECT (SELECT count(*) FROM facts)::int AS hours,
             (SELECT count(*)
              FROM ((TABLE facts EXCEPT TABLE rolled) UNION ALL (TABLE rolled EXCEPT TABLE facts)) d)::int
               AS mismatches`
  ).pipe(Effect.map(([row]) => row!))

for (const timezone of ZONES) {
  layer(TestCore, { timeout: 120_000 })(`hourly rollups in ${timezone}`, (it) => {
    it.effect("the rollups hold, hour by hour, exactly the sums of the facts", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { empresaId } = yield* dataset(timezone)
        const ledger = yield* compare(
          sql`
            SELECT date_trunc('hour', created_at, 'UTC') AS hour,
                   sum(points * (kind = 'credit')::int), sum(points * (kind = 'spend')::int),
                   sum(points * (kind = 'refund')::int), sum(points * (kind = 'expire')::int),
                   sum(points * (kind = 'adjust')::int)
            FROM points_ledger WHERE empresa_id = ${empresaId} GROUP BY 1`,
          sql`
            SELECT hour, sum(credit), sum(spend), sum(refund), sum(expire), sum(adjust)
            FROM points_ledger_hourly WHERE empresa_id = ${empresaId} GROUP BY hour`
        )
        const stamps = yield* compare(
          sql`
            SELECT date_trunc('hour', created_at, 'UTC') AS hour, program_id, sum(quantity)::numeric
            FROM loyalty_stamps WHERE empresa_id = ${empresaId} GROUP BY 1, 2`,
          sql`
            SELECT hour, program_id, sum(stamps)
            FROM loyalty_stamps_hourly WHERE empresa_id = ${empresaId} GROUP BY hour, program_id`
        )
        // The latest client moved back across an hour, as the demo moves its history.
        yield* sql`
          UPDATE clients SET created_at = created_at - interval '90 minutes'
          WHERE id = (SELECT id FROM clients WHERE empresa_id = ${empresaId} ORDER BY created_at DESC LIMIT 1)`
        const joined = yield* compare(
          sql`
            SELECT date_trunc('hour', created_at, 'UTC') AS hour, count(*)::numeric
            FROM clients WHERE empresa_id = ${empresaId} GROUP BY 1`,
          sql`
            SELECT hour, sum(created) FROM clients_hourly WHERE empresa_id = ${empresaId} GROUP BY hour
            HAVING sum(created) <> 0`
        )
        const [totals] = yield* sql<{ same: boolean }>`
          SELECT (SELECT (count(*), sum(balance))::text FROM clients WHERE empresa_id = ${empresaId})
                 = (SELECT (sum(clients), sum(outstanding))::text FROM client_totals WHERE empresa_id = ${empresaId})
                 AS same`
        expect(joined.hours).toBeGreaterThan(900)
        expect(joined.mismatches).toBe(0)
        expect(totals!.same).toBe(true)
        expect(ledger.hours).toBeGreaterThan(900)
        expect(ledger.mismatches).toBe(0)
        expect(stamps.hours).toBeGreaterThan(900)
        expect(stamps.mismatches).toBe(0)
      })
    )

    it.effect("the overview's points and clients equal the facts' over every window", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { empresaId } = yield* dataset(timezone)
        for (const days of WINDOWS) {
          const overview = yield* MetricsOverviewReport.get(empresaId, { days })
          const [facts] = yield* sql`
            SELECT coalesce(sum(points) FILTER (WHERE kind = 'credit'), 0) AS issued,
                   coalesce(-sum(points) FILTER (WHERE kind = 'spend'), 0) AS spent,
                   coalesce(sum(points) FILTER (WHERE kind = 'refund'), 0) AS refunded,
                   coalesce(-sum(points) FILTER (WHERE kind = 'expire'), 0) AS expired,
                   coalesce(sum(points) FILTER (WHERE kind = 'adjust'), 0) AS adjusted
            FROM points_ledger
            WHERE empresa_id = ${empresaId} AND created_at >= ${overview.from} AND created_at < ${overview.to}`
          const [clients] = yield* sql`
            SELECT count(*)::int AS total, sum(balance)::int AS outstanding,
                   (count(*) FILTER (WHERE created_at >= ${overview.from} AND created_at < ${overview.to}))::int AS new
            FROM clients WHERE empresa_id = ${empresaId}`
          expect({ days, ...overview.points }).toEqual({ days, ...facts, outstanding: clients!["outstanding"] })
          expect({ days, total: overview.clients.total, new: overview.clients.new }).toEqual({
            days,
            total: clients!["total"],
            new: clients!["new"]
          })
          expect(overview.points.issued).toBeGreaterThan(0)
        }
      })
    )

    it.effect("the stamp series equals the facts' by local period, for every program and each", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { empresaId, cafe, pao } = yield* dataset(timezone)
        for (const days of WINDOWS) {
          for (const group_by of GROUPS) {
            for (const program_id of [null, cafe, pao]) {
              const report = yield* LoyaltyCardMetricsReport.get(empresaId, { days, group_by, program_id })
              const label = group_by === "month" ? "YYYY-MM" : "YYYY-MM-DD"
              const facts = yield* sql<{ period: string; stamps: number }>`
                SELECT to_char(date_trunc(${group_by}, created_at AT TIME ZONE ${timezone}), ${label}) AS period,
                       sum(quantity)::int AS stamps
                FROM loyalty_stamps
                WHERE empresa_id = ${empresaId} AND (${program_id}::uuid IS NULL OR program_id = ${program_id})
                  AND created_at >= ${sql.literal(windowStart(timezone, days))} AND created_at < now()
                GROUP BY 1 ORDER BY 1`
              const series = report.stamps_by_period
                .filter(({ stamps }) => stamps > 0)
                .map(({ period, stamps }) => ({ period, stamps }))
              expect({ days, group_by, program_id, series }).toEqual({ days, group_by, program_id, series: [...facts] })
              expect(series.length).toBeGreaterThan(0)
            }
          }
        }
      })
    )
  })
}

layer(TestCore, { timeout: 60_000 })("the cardholders under concurrent first cards", (it) => {
  // Each client is offered a card of each of two programs twice at once: per program one issue wins
  // and one is refused, and the client's first cards meet on the all-programs row (migration 0022).
  it.effect("add one row per client and program, and one per client over every program", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa()
      const clients = yield* Effect.all(Array.from({ length: 8 }, (_, i) => newClient(empresa.id, `Cliente ${i}`)))
      const programs = yield* Effect.all(
        ["Café", "Pão"].map((name) =>
          LoyaltyPrograms.create(empresa.id, { name, stamps_required: 5, reward_description: name, active: true })
        )
      )
      const outcomes = yield* Effect.all(
        clients.flatMap((client) =>
          programs.flatMap((program) =>
            [1, 2].map(() =>
              LoyaltyCards.issue(empresa.id, { client_id: client.id, program_id: program.id }).pipe(
                Effect.match({ onFailure: (error) => error._tag, onSuccess: () => "issued" })
              )
            )
          )
        ),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter((outcome) => outcome === "issued")).toHaveLength(clients.length * programs.length)
      const [holders] = yield* sql<{ per_program: number; overall: number }>`
        SELECT count(*) FILTER (WHERE program_id IS NOT NULL)::int AS per_program,
               count(*) FILTER (WHERE program_id IS NULL)::int AS overall
        FROM loyalty_cardholders WHERE empresa_id = ${empresa.id}`
      expect(holders).toEqual({ per_program: clients.length * programs.length, overall: clients.length })
    })
  )
})
