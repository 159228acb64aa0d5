/**
 * The bare baseline: an h3 route per measured operation running the same SQL statements as core,
 * on the same driver (pg), with nothing else: no authentication, rate limit, validation, tRPC,
 * OpenAPI or Effect. The benchmark reports each Fidelis operation as a fraction of this.
 */
import { H3 } from "h3"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { openPglite } from "@fidelis/db"
import pg from "pg"
import { toNodeHandler } from "srvx/node"

const empresaId = process.env["BENCH_EMPRESA_ID"]
const dataDir = process.env["FIDELIS_DATA_DIR"]
if (!empresaId || (!process.env["DATABASE_URL"] && !dataDir)) {
  throw new Error("BENCH_EMPRESA_ID and DATABASE_URL or FIDELIS_DATA_DIR are required")
}

/** Like the server: a real database through a pool, or its own PGlite over one socket connection. */
const connect = async () => {
  if (process.env["DATABASE_URL"]) return new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 10 })
  const db = await openPglite(`${dataDir}/pg`)
  const socket = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
  await socket.start()
  return new pg.Pool({ connectionString: `postgres://postgres@${socket.getServerConn()}/postgres`, max: 1 })
}
const pool = await connect()
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })

const CLIENT_COLUMNS = "id, nome, email, telefone, cpf, balance AS pontos, created_at, updated_at"

const app = new H3()
  .get("/clients/:id", async (event) => {
    const { rows } = await pool.query(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE empresa_id = $1 AND id = $2`, [
      empresaId,
      event.context.params!["id"]
    ])
    return json(rows[0])
  })
  .get("/clients", async (event) => {
    const search = new URL(event.req.url).searchParams.get("search") ?? ""
    const term = `%${search.toLowerCase()}%`
    const where = "AND (lower(nome) LIKE $2 OR lower(email) LIKE $2)"
    const [rows, count] = await Promise.all([
      pool.query(
        `SELECT ${CLIENT_COLUMNS} FROM clients WHERE empresa_id = $1 ${where} ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
        [empresaId, term]
      ),
      pool.query(`SELECT count(*)::int AS total FROM clients WHERE empresa_id = $1 ${where}`, [empresaId, term])
    ])
    return json({ data: rows.rows, total: count.rows[0].total, page: 1, per_page: 20 })
  })
  .post("/points/credit", async (event) => {
    const input = (await event.req.json()) as { client_id: string; points: number }
    const key = event.req.headers.get("x-idempotency-key") ?? crypto.randomUUID()
    const client = await pool.connect()
    try {
      // The same transaction core runs for an idempotent credit: lock, look up, act, record.
      await client.query("BEGIN")
      await client.query("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [`${empresaId}:credit_points:${key}`])
      await client.query(
        "SELECT fingerprint, response FROM idempotency_keys WHERE empresa_id = $1 AND operation = $2 AND key = $3 AND expires_at > now()",
        [empresaId, "credit_points", key]
      )
      const { rows } = await client.query(
        `WITH c AS (
           UPDATE clients SET balance = balance + $3, total_earned = total_earned + $3, updated_at = now()
           WHERE empresa_id = $1 AND id = $2 RETURNING id, balance
         ), ledger AS (
           INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
           SELECT $1, c.id, 'credit', $3, c.balance, NULL, NULL FROM c RETURNING id
         ), event AS (
           INSERT INTO activity_events (empresa_id, client_id, type, title, description, points, metadata)
           SELECT $1, c.id, 'purchase', '+' || $3 || ' points', NULL, $3, jsonb_build_object('transaction_id', ledger.id, 'source', NULL::text)
           FROM c, ledger
         )
         SELECT c.id AS client_id, c.balance, $1::uuid AS empresa_id, $3::int AS credited, ledger.id AS transaction_id FROM c, ledger`,
        [empresaId, input.client_id, input.points]
      )
      await client.query(
        `INSERT INTO idempotency_keys (empresa_id, operation, key, fingerprint, response, expires_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, now() + interval '1 day')
         ON CONFLICT (empresa_id, operation, key) DO UPDATE SET response = excluded.response`,
        [empresaId, "credit_points", key, "bench", JSON.stringify(rows[0])]
      )
      await client.query("COMMIT")
      return json(rows[0])
    } catch (error) {
      await client.query("ROLLBACK")
      throw error
    } finally {
      client.release()
    }
  })

const server = createServer(toNodeHandler(app.fetch.bind(app)) as unknown as RequestListener)
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`)
})
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))))
