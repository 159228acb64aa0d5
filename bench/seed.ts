/**
 * `npm run seed:large`: a realistic large tenant for benchmarks, generated inside the database with
 * set-based SQL (generate_series), in chunks so a progress bar can follow. Targets the configured
 * database: DATABASE_URL, or the embedded one in FIDELIS_DATA_DIR.
 *
 *   100,000 clients · 2,000,000 ledger entries · a year of history
 *   (300,000 stamps and 50,000 survey responses once those areas exist)
 */
import { SqlClient } from "@effect/sql"
import { configFromEnv, Empresas, makeRuntime } from "@fidelis/core"
import cliProgress from "cli-progress"
import { Effect, LogLevel } from "effect"

export const BENCH_SLUG = "bench-large"

export interface SeedSize {
  readonly clients: number
  readonly ledgerPerClient: number
}

export const LARGE: SeedSize = { clients: 100_000, ledgerPerClient: 20 }

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
                 now() - (g % 365) * interval '1 day'
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
    const ids = yield* sql<{ id: string }>`SELECT id FROM clients WHERE empresa_id = ${empresaId} ORDER BY created_at, id`
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
                 now() - interval '365 days' + (n * interval '18 days') + (c.k % 86400) * interval '1 second' AS created_at
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

/** Creates (or finds) the bench tenant and fills it once; returns its id and a sample of client ids. */
export const seedLarge = (size: SeedSize = LARGE) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [existing] = yield* sql<{ id: string }>`SELECT id FROM empresas WHERE id_name = ${BENCH_SLUG}`
    const empresa =
      existing ??
      (yield* Empresas.create({
        name: "Bench Supermercados",
        id_name: BENCH_SLUG,
        plan: "enterprise",
        api_access: true,
        settings: { timezone: "America/Sao_Paulo", point_value: 0.02 }
      }))
    const [{ n } = { n: 0 }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM clients WHERE empresa_id = ${empresa.id}`
    if (n < size.clients) {
      if (n > 0) yield* Effect.dieMessage(`The bench tenant is half-seeded (${n} clients); drop the database and seed again`)
      yield* seedClients(empresa.id, size)
      yield* seedLedger(empresa.id, size)
      yield* sql`ANALYZE`
    }
    const sample = yield* sql<{ id: string }>`SELECT id FROM clients WHERE empresa_id = ${empresa.id} ORDER BY id LIMIT 200`
    return { empresaId: empresa.id, clientIds: sample.map((c) => c.id) }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const runtime = makeRuntime(configFromEnv(), { logLevel: LogLevel.Warning })
  const started = Date.now()
  const seeded = await runtime.runPromise(seedLarge())
  await runtime.dispose()
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(seeded)}\n`)
  } else {
    process.stdout.write(`${BENCH_SLUG} (${seeded.empresaId}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
  }
}
