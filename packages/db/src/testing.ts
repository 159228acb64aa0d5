import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { openPglite } from "./embedded.js"

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

/** Creates `fidelis_test_<random>` next to TEST_DATABASE_URL's database. */
export const createRealDatabase = async (baseUrl: string): Promise<TestDatabase> => {
  const name = `fidelis_test_${randomBytes(6).toString("hex")}`
  await withAdmin(baseUrl, (c) => c.query(`CREATE DATABASE ${name}`))
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
export const createSharedDatabase = async (): Promise<TestDatabase> => {
  const real = realServerUrl()
  if (real !== undefined) return createRealDatabase(real)
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
