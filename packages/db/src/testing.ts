import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { layer } from "./client.js"
import { MEMORY, openPglite } from "./embedded.js"

/**
 * Test databases for every package's suites. A database for one test file: its own on the real
 * server, so runs never collide.
 */
export interface TestDatabase {
  readonly url: string
  drop(): Promise<void>
}

export const realServerUrl = (): string | undefined => process.env["TEST_DATABASE_URL"] || undefined

const withAdmin = async <A>(url: string, f: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Whether a test database starts `empty`, for a suite that runs the migrations itself. */
export interface TestDatabaseOptions {
  readonly empty?: boolean
}

/**
 * Creates `fidelis_test_<random>` next to TEST_DATABASE_URL's database: a copy of the migrated
 * template the global setup made (TEST_DATABASE_TEMPLATE, see `realTemplate`) when there is one, so
 * a server on it finds every migration applied; otherwise, or when asked, an empty one.
 */
export const createRealDatabase = async (baseUrl: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> => {
  const name = `fidelis_test_${randomBytes(6).toString("hex")}`
  const template = options.empty ? undefined : process.env["TEST_DATABASE_TEMPLATE"]
  await withAdmin(baseUrl, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`))
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => withAdmin(baseUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}

/**
 * A database several server processes can share: a fresh one on the real server when
 * TEST_DATABASE_URL is set, otherwise an in-memory PGlite served over the wire protocol from this
 * process. Its socket server serializes transactions across connections but can interleave the
 * protocol messages of concurrent statements outside them: drive it with sequential requests.
 */
export const createSharedDatabase = async (options: TestDatabaseOptions = {}): Promise<TestDatabase> => {
  const real = realServerUrl()
  if (real !== undefined) return createRealDatabase(real, options)
  const db = await openPglite(undefined)
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 32 })
  await server.start()
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    drop: async () => {
      await server.stop()
      await db.close()
    }
  }
}

/**
 * The database config a suite should use: a fresh database on TEST_DATABASE_URL's server when set
 * (dropped by `drop`), otherwise an in-memory embedded one.
 */
export const testDatabaseConfig = async (): Promise<{
  url: string | undefined
  dataDir: string
  drop(): Promise<void>
}> => {
  const real = realServerUrl()
  if (real === undefined) return { url: undefined, dataDir: "memory://", drop: async () => undefined }
  const database = await createRealDatabase(real)
  return { url: database.url, dataDir: "memory://", drop: database.drop }
}

/** Names a schema: the migrations' sources and the db package's manifest, which pins PGlite's version. */
const schemaDigest = () => {
  const digest = createHash("sha256").update(readFileSync(new URL("../package.json", import.meta.url)))
  const migrations = new URL("./migrations/", import.meta.url)
  for (const name of readdirSync(migrations).toSorted()) {
    digest.update(name).update(readFileSync(new URL(name, migrations)))
  }
  return digest.digest("hex").slice(0, 16)
}

/** Runs the migrations on the database at `url`, saying nothing. */
const migrateQuietly = (url: string) =>
  Effect.runPromise(
    Effect.scoped(Layer.build(layer({ url, dataDir: MEMORY }))).pipe(Logger.withMinimumLogLevel(LogLevel.None))
  )

/**
 * The migrated template database on the real server at `baseUrl`, `fidelis_template_<schema>`, made
 * once per schema for `createRealDatabase` to copy. Migrated under a temporary name and renamed, so
 * a parallel run never copies half of one; nobody stays connected to it, which a copy requires.
 */
export const realTemplate = async (baseUrl: string): Promise<string> => {
  const name = `fidelis_template_${schemaDigest()}`
  const exists = await withAdmin(baseUrl, (c) => c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]))
  if (exists.rowCount) return name
  const partial = `${name}_${process.pid}`
  await withAdmin(baseUrl, (c) => c.query(`CREATE DATABASE ${partial}`))
  const url = new URL(baseUrl)
  url.pathname = `/${partial}`
  await migrateQuietly(url.toString())
  await withAdmin(baseUrl, async (c) => {
    try {
      await c.query(`ALTER DATABASE ${partial} RENAME TO ${name}`)
    } catch {
      // Another run made it first: theirs is as good.
      await c.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`)
    }
  })
  return name
}

/**
 * A migrated embedded cluster for the suites' throwaway servers (FIDELIS_EMBEDDED_TEMPLATE), made
 * once per schema: initdb and the migrations take most of an embedded start, loading this a second.
 * Kept under `folder`, named after the migrations and the PGlite version, so a changed schema makes a
 * new one; written under a temporary name and renamed, so parallel runs never read half of one.
 */
export const embeddedTemplate = async (folder: string): Promise<string> => {
  const file = join(folder, `embedded-template-${schemaDigest()}.tar`)
  if (existsSync(file)) return file
  const db = await openPglite(undefined)
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
  await server.start()
  try {
    await migrateQuietly(`postgres://postgres@${server.getServerConn()}/postgres`)
  } finally {
    await server.stop()
  }
  const dump = await db.dumpDataDir("none")
  await db.close()
  mkdirSync(folder, { recursive: true })
  const partial = `${file}.${process.pid}`
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
  renameSync(partial, file)
  return file
}
