/**
 * The bare baseline: an h3 route per measured operation running the same SQL as core on the same
 * driver (@effect/sql-pg over pg, on the same database: embedded PGlite or a real server), with
 * nothing else: no authentication, rate limit, validation, tRPC, OpenAPI or per-request Effect
 * services. The analytics and the end-user paths (profile, redemption, surveys, receipt scans) run
 * core's own service calls, which are their SQL. The benchmark reports each Fidelis operation as a
 * fraction of this.
 */
import { SqlClient } from "@effect/sql"
import {
  Accounts,
  configFromEnv,
  EmpresaId,
  makeRuntime,
  Nfce,
  QuestId,
  Redemptions,
  RewardId,
  Surveys,
  UserId,
  type CoreServices
} from "@fidelis/core"
import {
  ClientBehaviorInput,
  ClientBehaviorReport,
  EngagementMetrics,
  LoyaltyCardMetricsInput,
  LoyaltyCardMetricsReport,
  MetricsOverviewInput,
  MetricsOverviewReport,
  NfceMetricsInput,
  QuestMetricsInput,
  ReferralMetricsInput,
  ReferralPerformanceInput
} from "@fidelis/core/metrics"
import { Effect, LogLevel } from "effect"
import { H3 } from "h3"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { toNodeHandler } from "srvx/node"

const benchEmpresa = process.env["BENCH_EMPRESA_ID"]
if (!benchEmpresa) throw new Error("BENCH_EMPRESA_ID is required")
const empresaId = EmpresaId.parse(benchEmpresa)
/** The seeded end user (the bench signed in as them on the Fidelis side). */
const userId = UserId.parse(process.env["BENCH_USER_ID"])

const runtime = makeRuntime(configFromEnv(), { logLevel: LogLevel.None })
const sql = await runtime.runPromise(SqlClient.SqlClient)
const run = <A>(effect: Effect.Effect<A, unknown, CoreServices>) => runtime.runPromise(effect)
const query = (text: string, params: ReadonlyArray<unknown>) => run(sql.unsafe(text, params))
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })
const params = (url: string) => Object.fromEntries(new URL(url).searchParams)

/** The scan tasks this process queued: with no job workers here, none is ever credited (see `withdrawScans`). */
const scanned: string[] = []

/**
 * Takes back the scans this baseline queued, tasks and jobs, so they don't wait for the next run's
 * Fidelis server, whose workers would credit thousands of them while it is being measured.
 */
const withdrawScans = async () => {
  await query(`DELETE FROM jobs WHERE state = 'pending' AND payload->>'task_id' = ANY($1)`, [scanned])
  await query(`DELETE FROM nfce_invoices WHERE id = ANY($1::uuid[]) AND status = 'processing'`, [scanned])
}

const CLIENT_COLUMNS = "id, nome, email, telefone, cpf, balance AS pontos, created_at, updated_at"

const app = new H3()
  .get("/clients/:id", async (event) => {
    const rows = await query(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE empresa_id = $1 AND id = $2`, [
      empresaId,
      event.context.params!["id"]
    ])
    return json(rows[0])
  })
  .get("/clients", async (event) => {
    const term = `%${(params(event.req.url)["search"] ?? "").toLowerCase()}%`
    const where = "AND (lower(nome) LIKE $2 OR lower(email) LIKE $2)"
    const rows = await query(
      `SELECT ${CLIENT_COLUMNS} FROM clients WHERE empresa_id = $1 ${where} ` +
        `ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
      [empresaId, term]
    )
    const count = await query(`SELECT count(*)::int AS total FROM clients WHERE empresa_id = $1 ${where}`, [
      empresaId,
      term
    ])
    return json({ data: rows, total: (count[0] as { total: number }).total, page: 1, per_page: 20 })
  })
  .post("/points/credit", async (event) => {
    const input = (await event.req.json()) as { client_id: string; points: number }
    const key = event.req.headers.get("x-idempotency-key") ?? crypto.randomUUID()
    // The transaction core runs for an idempotent credit: lock, look up, act, record.
    const result = await run(
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql.unsafe("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [
            `${empresaId}:credit_points:${key}`
          ])
          yield* sql.unsafe(
            "SELECT fingerprint, response FROM idempotency_keys " +
              "WHERE empresa_id = $1 AND operation = $2 AND key = $3 AND expires_at > now()",
            [empresaId, "credit_points", key]
          )
          const [row] = yield* sql.unsafe(
            `WITH c AS (
               UPDATE clients SET balance = balance + $3, total_earned = total_earned + $3, updated_at = now()
               WHERE empresa_id = $1 AND id = $2 RETURNING id, balance
             ), ledger AS (
               INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
               SELECT $1, c.id, 'credit', $3, c.balance, NULL, NULL FROM c RETURNING id
             ), event AS (
               INSERT INTO activity_events (empresa_id, client_id, type, title, description, points, metadata)
               SELECT $1, c.id, 'purchase', '+' || $3 || ' points', NULL, $3,
                      jsonb_build_object('transaction_id', ledger.id, 'source', NULL::text)
               FROM c, ledger
             )
             SELECT c.id AS client_id, c.balance, $1::uuid AS empresa_id, $3::int AS credited,
                    ledger.id AS transaction_id
             FROM c, ledger`,
            [empresaId, input.client_id, input.points]
          )
          yield* sql.unsafe(
            `INSERT INTO idempotency_keys (empresa_id, operation, key, fingerprint, response, expires_at)
             VALUES ($1, $2, $3, $4, $5::jsonb, now() + interval '1 day')
             ON CONFLICT (empresa_id, operation, key) DO UPDATE SET response = excluded.response`,
            [empresaId, "credit_points", key, "bench", JSON.stringify(row)]
          )
          return row
        })
      )
    )
    return json(result)
  })
  .get("/users/me", async () => json(await run(Accounts.me(userId))))
  .post("/rewards/:id/redeem", async (event) =>
    json(
      await run(Redemptions.redeem(userId, { reward_uid: RewardId.parse(event.context.params!["id"]), quantity: 1 }))
    )
  )
  .get("/quests/:ref/active", async (event) => json(await run(Surveys.active(event.context.params!["ref"]!))))
  .post("/quests/:ref/:quest/responses", async (event) => {
    const { response } = (await event.req.json()) as { response: Record<string, unknown> }
    const { ref, quest } = event.context.params!
    return json(
      await run(
        Surveys.respond(
          { estabelecimento_ref: ref!, quest_id: QuestId.parse(quest), response },
          event.req.headers.get("x-idempotency-key") ?? undefined
        )
      )
    )
  })
  .post("/nfce/decode-qr", async (event) => {
    const { qr_code } = (await event.req.json()) as { qr_code: string }
    const accepted = await run(Nfce.scan(userId, qr_code))
    scanned.push(accepted.task_id)
    return json(accepted)
  })
  .get("/loyalty-cards/metrics", async (event) =>
    json(await run(LoyaltyCardMetricsReport.get(empresaId, LoyaltyCardMetricsInput.parse(params(event.req.url)))))
  )
  .get("/metrics/overview", async (event) =>
    json(await run(MetricsOverviewReport.get(empresaId, MetricsOverviewInput.parse(params(event.req.url)))))
  )
  .get("/clients/:id/behavior", async (event) =>
    json(
      await run(
        ClientBehaviorReport.get(
          empresaId,
          ClientBehaviorInput.parse({ ...params(event.req.url), client_id: event.context.params!["id"] })
        )
      )
    )
  )
  .get("/referral-performance", async (event) =>
    json(
      await run(EngagementMetrics.referralPerformance(empresaId, ReferralPerformanceInput.parse(params(event.req.url))))
    )
  )
  .get("/referrals/metrics", async (event) =>
    json(await run(EngagementMetrics.referralMetrics(empresaId, ReferralMetricsInput.parse(params(event.req.url)))))
  )
  .get("/quests/metrics", async (event) =>
    json(await run(EngagementMetrics.questMetrics(empresaId, QuestMetricsInput.parse(params(event.req.url)))))
  )
  .get("/nfce/metrics", async (event) =>
    json(await run(EngagementMetrics.nfceMetrics(empresaId, NfceMetricsInput.parse(params(event.req.url)))))
  )

const server = createServer(toNodeHandler(app.fetch.bind(app)) as unknown as RequestListener)
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`)
})
process.on("SIGTERM", () =>
  server.close(() =>
    withdrawScans()
      .then(() => runtime.dispose())
      .then(() => process.exit(0))
  )
)
