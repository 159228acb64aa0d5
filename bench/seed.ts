/**
 * `npm run seed:large`: a realistic large tenant for benchmarks, generated inside the database with
 * set-based SQL (generate_series), in chunks so a progress bar can follow. Targets the configured
 * database: DATABASE_URL, or the embedded one in FIDELIS_DATA_DIR.
 *
 *   100,000 clients · 2,000,000 ledger entries · 300,000 stamps · 50,000 survey responses
 *   spread over every hour of a year, and the timeline event each ledger entry, stamp and claim
 *   writes (~2.3M).
 *   Each step runs once: a re-run tops up only what is missing.
 */
import { SqlClient } from "@effect/sql"
import { configFromEnv, Empresas, hashPassword, makeRuntime, Quests, type EmpresaId } from "@fidelis/core"
import cliProgress from "cli-progress"
import { Effect, LogLevel } from "effect"

export const BENCH_SLUG = "bench-large"

export interface SeedSize {
  readonly clients: number
  readonly ledgerPerClient: number
  /** Clients with stamp cards; each gets 3..17 stamps (10 on average). */
  readonly cardholders: number
  readonly surveyResponses: number
}

export const LARGE: SeedSize = { clients: 100_000, ledgerPerClient: 20, cardholders: 30_000, surveyResponses: 50_000 }

const CHUNK_CLIENTS = 5_000

const progress = (title: string, total: number) => {
  const bar = new cliProgress.SingleBar(
    // Progress goes to stderr so stdout stays machine-readable (`--json`).
    {
      format: `${title.padEnd(16)} {bar} {percentage}% | {value}/{total} | {duration}s`,
      hideCursor: true,
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 10_000
    },
    cliProgress.Presets.shades_classic
  )
  bar.start(total, 0)
  return bar
}

/** Clients and their end-user accounts, `CHUNK_CLIENTS` at a time. */
const seedClients = (empresaId: string, size: SeedSize) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const bar = progress("clients", size.clients)
    for (let from = 1; from <= size.clients; from += CHUNK_CLIENTS) {
      const to = Math.min(size.clients, from + CHUNK_CLIENTS - 1)
      yield* sql`
        WITH u AS (
          INSERT INTO users (email, nome, telefone, referral_code, created_at)
          SELECT 'bench+' || g || '@example.com',
                 (ARRAY['Ana','Bruno','Carla','Diego','Elisa','Fábio','Gabriela','Hugo','Iara','João'])[1 + g % 10]
                   || ' ' || (ARRAY['Souza','Lima','Mendes','Alves','Costa','Rocha','Dias','Melo'])[1 + (g / 10) % 8]
                   || ' ' || g,
                 '+55119' || lpad((g % 100000000)::text, 8, '0'),
                 'BENCH' || lpad(g::text, 9, '0'),
                 now() - (g % 365) * interval '1 day' - (g * 7919 % 86400) * interval '1 second'
          FROM generate_series(${from}::int, ${to}::int) g
          RETURNING id, email, nome, telefone, created_at
        )
        INSERT INTO clients (empresa_id, user_id, nome, email, telefone, created_at, updated_at)
        SELECT ${empresaId}, id, nome, email, telefone, created_at, created_at FROM u`
      bar.update(to)
    }
    bar.stop()
  })

/**
 * The points ledger: per client, credits with a few spends, each spend smaller than what came
 * before it so every running balance stays >= 0; balances are then derived from the ledger.
 */
const seedLedger = (empresaId: string, size: SeedSize) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const total = size.clients * size.ledgerPerClient
    const bar = progress("ledger", total)
    const ids = yield* sql<{
      id: string
    }>`SELECT id FROM clients WHERE empresa_id = ${empresaId} ORDER BY created_at, id`
    for (let offset = 0; offset < ids.length; offset += CHUNK_CLIENTS) {
      const chunk = ids.slice(offset, offset + CHUNK_CLIENTS).map((r) => r.id)
      yield* sql`
        INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description, created_at)
        SELECT ${empresaId}, e.client_id, e.kind, e.points,
               sum(e.points) OVER (PARTITION BY e.client_id ORDER BY e.n),
               'bench', NULL, e.created_at
        FROM (
          SELECT c.client_id, n,
                 CASE WHEN n % 5 = 4 THEN 'spend' ELSE 'credit' END AS kind,
                 CASE WHEN n % 5 = 4 THEN -(1 + (n * 7 + c.k) % 10) ELSE 10 + (n * 13 + c.k) % 90 END AS points,
                 now() - interval '365 days' + n * interval '18 days'
                   + (${offset} + c.k - 1) * (interval '18 days' / ${size.clients}) AS created_at
          FROM unnest(${chunk}::uuid[]) WITH ORDINALITY AS c(client_id, k)
          CROSS JOIN generate_series(0, ${size.ledgerPerClient - 1}::int) n
        ) e`
      bar.update(Math.min(total, (offset + chunk.length) * size.ledgerPerClient))
    }
    bar.stop()
    yield* sql`
      UPDATE clients c SET balance = l.balance, total_earned = l.earned, total_spent = l.spent
      FROM (
        SELECT client_id, sum(points) AS balance,
               sum(points) FILTER (WHERE points > 0) AS earned,
               -coalesce(sum(points) FILTER (WHERE points < 0), 0) AS spent
        FROM points_ledger WHERE empresa_id = ${empresaId} GROUP BY client_id
      ) l
      WHERE c.empresa_id = ${empresaId} AND c.id = l.client_id`
  })

/**
 * A coffee card of 10 stamps: each cardholder's stamps fall every 20 days; whoever reaches 10 has
 * claimed that card and carries the rest on the next one, as the claim cycle does. Cards go in
 * first and are analyzed before the stamps, or the stamps' foreign-key checks would keep a plan
 * made for an empty table and scan it for every row.
 */
const seedStamps = (empresaId: string, size: SeedSize) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [program] = yield* sql<{ id: string }>`
      INSERT INTO loyalty_programs (empresa_id, name, stamps_required, reward_description, created_at)
      VALUES (${empresaId}, 'Cartão Café', 10, 'Um café expresso grátis', now() - interval '366 days')
      RETURNING id`
    const ids = yield* sql<{ id: string }>`
      SELECT id FROM clients WHERE empresa_id = ${empresaId} ORDER BY created_at, id LIMIT ${size.cardholders}`
    const cardsBar = progress("cards", ids.length)
    for (let offset = 0; offset < ids.length; offset += CHUNK_CLIENTS) {
      const chunk = ids.slice(offset, offset + CHUNK_CLIENTS).map((r) => r.id)
      yield* sql`
        WITH holders AS (
          SELECT c.client_id, 3 + ((c.k + ${offset}) * 7) % 15 AS total,
                 now() - interval '365 days' + (${offset} + c.k - 1) * (interval '20 days' / ${size.cardholders}) AS t0
          FROM unnest(${chunk}::uuid[]) WITH ORDINALITY AS c(client_id, k)
        )
        INSERT INTO loyalty_cards (empresa_id, client_id, program_id, stamps, max_stamps, status,
                                   completed_at, claimed_at, created_at, updated_at)
        SELECT ${empresaId}::uuid, h.client_id, ${program!.id}::uuid, least(h.total, 10), 10,
               CASE WHEN h.total >= 10 THEN 'claimed' ELSE 'active' END,
               CASE WHEN h.total >= 10 THEN h.t0 + 10 * interval '20 days' END,
               CASE WHEN h.total >= 10 THEN h.t0 + 10 * interval '20 days' + interval '1 hour' END,
               h.t0, h.t0
        FROM holders h
        UNION ALL
        SELECT ${empresaId}::uuid, h.client_id, ${program!.id}::uuid, h.total - 10, 10, 'active',
               NULL::timestamptz, NULL::timestamptz,
               h.t0 + 10 * interval '20 days' + interval '1 hour', h.t0 + 10 * interval '20 days' + interval '1 hour'
        FROM holders h WHERE h.total > 10`
      cardsBar.update(offset + chunk.length)
    }
    cardsBar.stop()
    yield* sql`ANALYZE loyalty_cards`
    const cards = yield* sql<{ id: string }>`
      SELECT id FROM loyalty_cards WHERE empresa_id = ${empresaId} AND program_id = ${program!.id} ORDER BY id`
    const stampsBar = progress("stamps", cards.length)
    for (let offset = 0; offset < cards.length; offset += CHUNK_CLIENTS) {
      const chunk = cards.slice(offset, offset + CHUNK_CLIENTS).map((r) => r.id)
      yield* sql`
        INSERT INTO loyalty_stamps (empresa_id, card_id, client_id, program_id, quantity, created_at)
        SELECT c.empresa_id, c.id, c.client_id, c.program_id, 1, c.created_at + j * interval '20 days'
        FROM loyalty_cards c CROSS JOIN LATERAL generate_series(1, c.stamps) j
        WHERE c.empresa_id = ${empresaId} AND c.id = ANY(${chunk}::uuid[])`
      stampsBar.update(offset + chunk.length)
    }
    stampsBar.stop()
  })

/**
 * The clients' timeline, as the write paths leave it: an event per ledger entry (a credit is a
 * purchase, a spend what the points bought), per stamp and per reward claimed, at the same instant
 * and with the same title and metadata. Set-based from the facts already seeded, so it also tops up
 * a tenant seeded before the seeder wrote events.
 */
const seedTimeline = (empresaId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* sql<{
      id: string
    }>`SELECT id FROM clients WHERE empresa_id = ${empresaId} ORDER BY created_at, id`
    const bar = progress("timeline", ids.length)
    for (let offset = 0; offset < ids.length; offset += CHUNK_CLIENTS) {
      const chunk = ids.slice(offset, offset + CHUNK_CLIENTS).map((r) => r.id)
      yield* sql`
        INSERT INTO activity_events (empresa_id, client_id, type, title, description, points, metadata, created_at)
        SELECT l.empresa_id, l.client_id,
               CASE WHEN l.kind = 'credit' THEN 'purchase' ELSE 'reward' END,
               CASE WHEN l.kind = 'credit' THEN '+' || l.points || ' points' ELSE l.points || ' points' END,
               l.description, l.points, jsonb_build_object('transaction_id', l.id, 'source', l.source), l.created_at
        FROM points_ledger l
        WHERE l.empresa_id = ${empresaId} AND l.client_id = ANY(${chunk}::uuid[]) AND l.source = 'bench'
        UNION ALL
        SELECT s.empresa_id, s.client_id, 'interaction', '+1 stamp',
               p.name || ': ' || s.stamps || ' of ' || c.max_stamps || ' stamps', 0,
               jsonb_build_object(
                 'interaction_type', 'loyalty_stamp', 'card_id', c.id, 'program_id', p.id, 'program_name', p.name,
                 'quantity', s.quantity, 'stamps', s.stamps, 'max_stamps', c.max_stamps,
                 'completed', s.stamps = c.max_stamps, 'stamp_id', s.id),
               s.created_at
        FROM (
          SELECT *, sum(quantity) OVER (PARTITION BY card_id ORDER BY created_at) AS stamps
          FROM loyalty_stamps WHERE empresa_id = ${empresaId} AND client_id = ANY(${chunk}::uuid[])
        ) s
        JOIN loyalty_cards c ON c.empresa_id = s.empresa_id AND c.id = s.card_id
        JOIN loyalty_programs p ON p.empresa_id = s.empresa_id AND p.id = s.program_id
        UNION ALL
        SELECT c.empresa_id, c.client_id, 'reward', 'Reward claimed: ' || p.reward_description, p.name, 0,
               jsonb_build_object(
                 'card_id', c.id, 'program_id', p.id, 'program_name', p.name,
                 'reward_description', p.reward_description, 'next_card_id', next.id),
               c.claimed_at
        FROM loyalty_cards c
        JOIN loyalty_programs p ON p.empresa_id = c.empresa_id AND p.id = c.program_id
        LEFT JOIN loyalty_cards next
          ON next.empresa_id = c.empresa_id AND next.client_id = c.client_id AND next.program_id = c.program_id
         AND next.created_at >= c.claimed_at
        WHERE c.empresa_id = ${empresaId} AND c.client_id = ANY(${chunk}::uuid[]) AND c.status = 'claimed'`
      bar.update(offset + chunk.length)
    }
    bar.stop()
  })

/** Survey answers over the year: mostly satisfied, a tail of detractors, some leaving a contact. */
const seedSurveyResponses = (empresaId: EmpresaId, size: SeedSize) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* Quests.ensureDefault(empresaId)
    const [quest] = yield* sql<{ id: string }>`SELECT id FROM quests WHERE empresa_id = ${empresaId} AND is_default`
    const bar = progress("survey responses", size.surveyResponses)
    const chunk = 10_000
    for (let from = 1; from <= size.surveyResponses; from += chunk) {
      const to = Math.min(size.surveyResponses, from + chunk - 1)
      yield* sql`
        INSERT INTO quest_responses (empresa_id, quest_id, answers, csat, nps, client_name, client_phone, contact_at,
                                     low_score_alert_sent, created_at)
        SELECT ${empresaId}, ${quest!.id}, jsonb_build_object('csat', r.csat, 'nps', r.nps), r.csat, r.nps,
               CASE WHEN g % 4 = 0 THEN 'Cliente ' || g END,
               CASE WHEN g % 8 = 0 THEN '5511' || lpad((900000000 + g)::text, 9, '0') END,
               CASE WHEN g % 4 = 0 THEN r.at + interval '2 minutes' END,
               r.csat <= 2 OR r.nps <= 6,
               r.at
        FROM generate_series(${from}::int, ${to}::int) g
        CROSS JOIN LATERAL (
          SELECT (ARRAY[5,5,5,4,4,4,3,2,5,1])[1 + g % 10] AS csat,
                 (ARRAY[10,9,9,8,10,7,6,3,9,10,5])[1 + g % 11] AS nps,
                 now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second' AS at
        ) r`
      bar.update(to)
    }
    bar.stop()
  })

/** The end user the bench signs in as, and the CNPJ its receipts name (valid check digits). */
export const BENCH_USER = { email: "bench-user@example.com", password: "bench-password" } as const
export const BENCH_CNPJ = "11222333000181"

/**
 * What the end-user paths need, added once: a verified account that is a client of the tenant
 * with points for any run (a billion, each redemption spends one), a one-point reward without
 * stock or per-user limits, and the tenant's CNPJ so its receipts find it. Cheap password cost:
 * the bench measures requests with a token, not signing in.
 */
const seedEndUser = (empresaId: EmpresaId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [existing] = yield* sql<{ id: string }>`SELECT id FROM users WHERE lower(email) = ${BENCH_USER.email}`
    if (existing === undefined) {
      const passwordHash = yield* hashPassword(BENCH_USER.password, 10)
      yield* sql`
        WITH u AS (
          INSERT INTO users (email, nome, password_hash, referral_code, email_verified_at)
          VALUES (${BENCH_USER.email}, 'Bench User', ${passwordHash}, 'BENCHUSER', now())
          RETURNING id, email, nome
        ), c AS (
          INSERT INTO clients (empresa_id, user_id, nome, email, balance, total_earned)
          SELECT ${empresaId}, id, nome, email, 1000000000, 1000000000 FROM u
          RETURNING id, balance
        )
        INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source)
        SELECT ${empresaId}, id, 'credit', balance, balance, 'bench' FROM c`
      const [product] = yield* sql<{ id: string }>`
        INSERT INTO products (empresa_id, name, points_cost) VALUES (${empresaId}, 'Bench reward', 1) RETURNING id`
      yield* sql`
        INSERT INTO rewards (empresa_id, product_id, pontos_necessarios) VALUES (${empresaId}, ${product!.id}, 1)`
      yield* sql`UPDATE empresas SET cnpj = ${BENCH_CNPJ} WHERE id = ${empresaId}`
    }
    const [reward] = yield* sql<{ id: string }>`
      SELECT r.id FROM rewards r JOIN products p ON p.empresa_id = r.empresa_id AND p.id = r.product_id
      WHERE r.empresa_id = ${empresaId} AND p.name = 'Bench reward'`
    return reward!.id
  })

/** Creates (or finds) the bench tenant and fills it once; returns its id and a sample of client ids. */
export const seedLarge = (size: SeedSize = LARGE) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [existing] = yield* sql<{ id: EmpresaId }>`SELECT id FROM empresas WHERE id_name = ${BENCH_SLUG}`
    const empresa =
      existing ??
      (yield* Empresas.create({
        name: "Bench Supermercados",
        id_name: BENCH_SLUG,
        plan: "enterprise",
        api_access: true,
        settings: { timezone: "America/Sao_Paulo", point_value: 0.02 }
      }))
    const count = (table: "clients" | "loyalty_stamps" | "quest_responses") =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE empresa_id = ${empresa.id}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )
    let changed = false
    const clients = yield* count("clients")
    if (clients >= size.clients) {
      // Seeders before 2026-11-24 put a year's ledger in a few hours of 20 days, which left the
      // hourly rollups 61 rows where a real year fills every hour.
      const [hours] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM points_ledger_hourly WHERE empresa_id = ${empresa.id}`
      if (hours!.n < 1_000)
        yield* Effect.dieMessage(
          "The bench tenant was seeded by an older seeder (its year in a few hours a day); " +
            "drop the database (or bench/.data) and seed again"
        )
    }
    if (clients < size.clients) {
      if (clients > 0)
        yield* Effect.dieMessage(
          `The bench tenant is half-seeded (${clients} clients); drop the database and seed again`
        )
      yield* seedClients(empresa.id, size)
      yield* seedLedger(empresa.id, size)
      changed = true
    }
    if ((yield* count("loyalty_stamps")) === 0) {
      yield* seedStamps(empresa.id, size)
      changed = true
    }
    // Seeded history is backdated: only it holds events from before the tenant existed.
    const [timeline] = yield* sql<{ seeded: boolean }>`
      SELECT EXISTS (
        SELECT 1 FROM activity_events
        WHERE empresa_id = ${empresa.id} AND created_at < (SELECT created_at FROM empresas WHERE id = ${empresa.id})
      ) AS seeded`
    if (!timeline!.seeded) {
      yield* seedTimeline(empresa.id)
      changed = true
    }
    if ((yield* count("quest_responses")) === 0) {
      yield* seedSurveyResponses(empresa.id, size)
      changed = true
    }
    const rewardId = yield* seedEndUser(empresa.id)
    // VACUUM, not only ANALYZE: index-only scans need the visibility map, and PGlite runs no
    // autovacuum (without it the overview read the heap and took over a second).
    if (changed) yield* sql`VACUUM ANALYZE`
    const sample = yield* sql<{
      id: string
    }>`SELECT id FROM clients WHERE empresa_id = ${empresa.id} ORDER BY id LIMIT 200`
    return { empresaId: empresa.id, slug: BENCH_SLUG, clientIds: sample.map((c) => c.id), rewardId }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const runtime = makeRuntime(configFromEnv(), { logLevel: LogLevel.Warning })
  const started = Date.now()
  const seeded = await runtime.runPromise(seedLarge())
  await runtime.dispose()
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(seeded)}\n`)
  } else {
    process.stdout.write(
      `${BENCH_SLUG} (${seeded.empresaId}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`
    )
  }
}
