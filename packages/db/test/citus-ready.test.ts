import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { migrate } from "../src/migrate.js"
import { MIGRATIONS } from "../src/migrations/index.js"
import { createRealDatabase, realServerUrl } from "../src/testing.js"

/**
 * The schema stays distributable by `empresa_id` on Citus (docs/scaling.md): read from the catalog
 * after the migrations, every table is distributed (it has `empresa_id`), a reference table or a
 * local one, and the keys of the distributed ones are those Citus accepts. On the real PostgreSQL
 * only: Citus runs on it, not on the embedded database.
 */

/** Tables replicated to every node (`create_reference_table`), with why each is not distributed. */
const REFERENCE: Record<string, string> = {
  empresas: "the tenants themselves: every distributed table references them, and stores are listed across tenants",
  users: "end-user accounts span empresas: clients, team members, referrals, carts and receipts reference them",
  api_keys: "a key is found by its hash before its empresa is known, on every uncached request",
  cnpj_claims: "one owner per CNPJ platform-wide (its primary key is the CNPJ); a scan finds the empresa by it"
}

/** Tables kept on the coordinator only, with why. */
const LOCAL: Record<string, string> = {
  fidelis_migrations: "the schema version, for the migrator",
  rate_limit_counters: "per-request counters of every tenant and address, unlogged; Redis takes them off the database",
  jobs: "the background queue, claimed with FOR UPDATE SKIP LOCKED across tenants",
  server_secrets: "keys the server generates for itself",
  signing_keys: "the end-user token signing keys",
  sessions: "end-user logins, read on uncached bearer requests; they belong to users, not to an empresa",
  refresh_tokens: "end-user refresh tokens, rotated on every use",
  account_tokens: "end-user email-verification and password-reset links",
  login_throttle: "failed logins per account or address",
  empresa_cnpjs_dropped: "registrations migration 0032 took away, kept for support to read"
}

/**
 * Unique indexes of distributed tables that leave `empresa_id` out because the rule they keep is
 * platform-wide; each must be replaced as docs/scaling.md says before its table is distributed.
 */
const GLOBAL_UNIQUE: Record<string, string> = {
  nfce_invoices_access_key: "a receipt credits once whoever scans it, at whichever empresa holds its CNPJ then"
}

interface Table {
  readonly name: string
  readonly tenant: boolean
}
interface UniqueIndex {
  readonly table: string
  readonly name: string
  readonly primary: boolean
  readonly columns: ReadonlyArray<string>
}
interface ForeignKey {
  readonly name: string
  readonly from: string
  readonly to: string
  readonly from_columns: ReadonlyArray<string>
  readonly to_columns: ReadonlyArray<string>
}

/** Column names of `keys` (attribute numbers of `relation`) in key order; an expression is `(expression)`. */
const columnsOf = (keys: string, relation: string) => `
  array(SELECT coalesce(a.attname::text, '(expression)')
        FROM unnest(${keys}) WITH ORDINALITY AS k (attnum, n)
        LEFT JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = k.attnum
        ORDER BY k.n)`

const catalog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<Table>`
    SELECT c.relname AS name,
           EXISTS (SELECT 1 FROM pg_attribute a
                   WHERE a.attrelid = c.oid AND a.attname = 'empresa_id' AND NOT a.attisdropped) AS tenant
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    ORDER BY 1`
  const uniques = yield* sql<UniqueIndex>`
    SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary,
           ${sql.literal(columnsOf("(x.indkey::int2[])[0:x.indnkeyatts - 1]", "x.indrelid"))} AS columns
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    WHERE t.relnamespace = 'public'::regnamespace AND x.indisunique
    ORDER BY 1, 2`
  const foreignKeys = yield* sql<ForeignKey>`
    SELECT c.conname AS name, s.relname AS from, d.relname AS to,
           ${sql.literal(columnsOf("c.conkey", "c.conrelid"))} AS from_columns,
           ${sql.literal(columnsOf("c.confkey", "c.confrelid"))} AS to_columns
    FROM pg_constraint c JOIN pg_class s ON s.oid = c.conrelid JOIN pg_class d ON d.oid = c.confrelid
    WHERE c.contype = 'f' AND s.relnamespace = 'public'::regnamespace
    ORDER BY 1`
  return { tables, uniques, foreignKeys }
})

type Kind = "distributed" | "reference" | "local" | "unclassified"

/** What keeps the schema from being distributed as docs/scaling.md plans, one line per finding. */
const findings = (schema: Effect.Effect.Success<typeof catalog>) => {
  const tenant = new Set(schema.tables.filter((t) => t.tenant).map((t) => t.name))
  const kind = (table: string): Kind =>
    table in REFERENCE ? "reference" : table in LOCAL ? "local" : tenant.has(table) ? "distributed" : "unclassified"
  const found: Array<string> = []

  for (const table of schema.tables) {
    if (kind(table.name) === "unclassified")
      found.push(`${table.name}: no empresa_id, and not a reference or local table`)
    if (kind(table.name) !== "distributed") continue
    const primary = schema.uniques.find((u) => u.table === table.name && u.primary)
    if (primary?.columns[0] !== "empresa_id")
      found.push(
        `${table.name}: primary key ${primary ? `(${primary.columns.join(", ")})` : "missing"}, not led by empresa_id`
      )
  }

  // Citus enforces a unique index shard by shard, so it must hold the distribution column.
  for (const unique of schema.uniques) {
    if (kind(unique.table) !== "distributed" || unique.columns.includes("empresa_id")) continue
    if (unique.name in GLOBAL_UNIQUE) continue
    found.push(`${unique.table}: unique ${unique.name} (${unique.columns.join(", ")}) without empresa_id`)
  }

  for (const key of schema.foreignKeys) {
    const [from, to] = [kind(key.from), kind(key.to)]
    const paired = key.from_columns.some((c, i) => c === "empresa_id" && key.to_columns[i] === "empresa_id")
    // Between two tenant tables, the key names the tenant on both sides, whatever each table's kind.
    if (tenant.has(key.from) && tenant.has(key.to) && !paired)
      found.push(`${key.name}: ${key.from} -> ${key.to} (${key.to_columns.join(", ")}) without empresa_id`)
    // Citus takes keys from distributed tables to reference ones, never to a local table, and never
    // from a reference or local table to a distributed one.
    if (from === "distributed" && to === "local") found.push(`${key.name}: distributed ${key.from} -> local ${key.to}`)
    if (from !== "distributed" && to === "distributed")
      found.push(`${key.name}: ${from} ${key.from} -> distributed ${key.to}`)
  }
  return found
}

/** An empty database on TEST_DATABASE_URL's server, for the migrations to build. */
const onRealDatabase = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => createRealDatabase(realServerUrl()!, { empty: true })),
      (db) => Effect.promise(() => db.drop())
    ),
    (db) => PgClient.layer({ url: Redacted.make(db.url), maxConnections: 1 })
  )
)

/** Runs the migrations up to `last` included, in id order. */
const migrateTo = (last: string) =>
  Effect.forEach(
    Object.entries(MIGRATIONS)
      .toSorted(([a], [b]) => a.localeCompare(b))
      .filter(([name]) => name <= last),
    ([, load]) => Effect.flatMap(Effect.promise(load), (module) => module.default),
    { discard: true }
  )

describe.runIf(realServerUrl() !== undefined)("the schema distributes by empresa_id on Citus", () => {
  it.live(
    "every table is distributed, reference or local, and the distributed ones' keys carry empresa_id",
    () =>
      Effect.gen(function* () {
        yield* migrate
        const schema = yield* catalog
        expect(findings(schema)).toEqual([])
        // The lists name tables that exist, and a table in both would be planned twice.
        const names = new Set(schema.tables.map((t) => t.name))
        expect([...Object.keys(REFERENCE), ...Object.keys(LOCAL)].filter((t) => !names.has(t))).toEqual([])
        expect(Object.keys(REFERENCE).filter((t) => t in LOCAL)).toEqual([])
        const indexes = new Set(schema.uniques.map((u) => u.name))
        expect(Object.keys(GLOBAL_UNIQUE).filter((i) => !indexes.has(i))).toEqual([])
      }).pipe(Effect.provide(onRealDatabase)),
    120_000
  )

  it.live(
    "finds the keys that stood in the way before migration 0033",
    () =>
      Effect.gen(function* () {
        yield* migrateTo("0032_cnpj_claims")
        expect(findings(yield* catalog)).toEqual([
          "empresa_cnpjs: primary key (cnpj), not led by empresa_id",
          "loyalty_cardholders: primary key missing, not led by empresa_id",
          "loyalty_client_stamps: primary key missing, not led by empresa_id",
          "empresa_cnpjs: unique empresa_cnpjs_pkey (cnpj) without empresa_id",
          "team_members: unique team_members_id_key (id) without empresa_id",
          "email_messages_job_id_fkey: distributed email_messages -> local jobs",
          "team_members_invited_by_fkey: team_members -> api_keys (id) without empresa_id"
        ])
      }).pipe(Effect.provide(onRealDatabase)),
    120_000
  )
})
