import { spawn } from "node:child_process"
import { access, constants, readFile, rm, writeFile } from "node:fs/promises"
import { delimiter, join } from "node:path"
import pg from "pg"
import { freePort, serverTempDir } from "./cluster.js"

/**
 * A PgBouncer of the caller's own in transaction pooling mode, in front of a real PostgreSQL: the
 * pooler production runs Fidelis behind (docs/decisions.md, "Behind PgBouncer").
 */
export interface Pooler {
  /** `databaseUrl` (a database on the upstream server) reached through the pooler instead. */
  urlFor(databaseUrl: string): string
  /** Everything the pooler logged so far. */
  log(): Promise<string>
  /** Stops it and deletes its files. */
  stop(): Promise<void>
}

/** The `pgbouncer` binary (Debian installs it in /usr/sbin, often not on a user's PATH), or undefined. */
export const pgbouncerBinary = async (): Promise<string | undefined> => {
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin"]
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, "pgbouncer")
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false
      )
    )
      return candidate
  }
  return undefined
}

const READY_TIMEOUT_MS = 15_000

/** Resolves once a query goes through the pooler to the upstream server. */
const ready = async (url: string) => {
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
    try {
      await client.connect()
      await client.query("SELECT 1")
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, 100))
    } finally {
      await client.end().catch(() => undefined)
    }
  }
}

/**
 * Starts `binary` on a free loopback port, every database of `upstream`'s server behind it as that
 * URL's user (auth_type any: the pooler itself asks for no password, like the trust-auth server
 * behind it). `poolSize` server connections per database, fewer than the clients' pools together,
 * so connections really are shared between transactions of different processes. Its server
 * connections turn JIT off, as the deployment guide's configuration does (README).
 */
export const startPgbouncer = async (binary: string, upstream: string, poolSize = 4): Promise<Pooler> => {
  const { dir, asRoot } = await serverTempDir("fidelis-pgbouncer-")
  const server = new URL(upstream)
  const port = await freePort()
  const config = join(dir, "pgbouncer.ini")
  const logfile = join(dir, "pgbouncer.log")
  const target = `host=${server.hostname} port=${server.port || 5432} user=${server.username || "postgres"}`
  await writeFile(
    config,
    [
      "[databases]",
      `* = ${target} connect_query='SET jit = off'`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 1000",
      `logfile = ${logfile}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
      ""
    ].join("\n")
  )
  // PgBouncer refuses to run as root; as root it runs as the `postgres` user, who owns `dir`.
  const child = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), config], { stdio: "ignore" })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const log = () => readFile(logfile, "utf8").catch(() => "")
  const urlFor = (databaseUrl: string) => {
    const through = new URL(databaseUrl)
    through.hostname = "127.0.0.1"
    through.port = String(port)
    return through.toString()
  }
  const stop = async () => {
    // SIGTERM: PgBouncer's immediate shutdown, closing every connection at once.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await exited
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await ready(urlFor(upstream))
  } catch (error) {
    const output = await log()
    await stop()
    throw new Error(`pgbouncer did not start:\n${output}`, { cause: error })
  }
  return { urlFor, log, stop }
}
