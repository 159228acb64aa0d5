import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { join, resolve } from "node:path"

export const MEMORY = "memory://"

/** The lock file's contents: who holds the data directory and, once it listens, the server's URL. */
interface LockOwner {
  readonly pid: number
  readonly since: string
  readonly url?: string
}

/**
 * The embedded database is owned by one process; this says which one holds it, and the URL of the
 * server it runs when that process is a server that announced one (`announceServer`).
 */
export class EmbeddedDatabaseBusy extends Data.TaggedError("EmbeddedDatabaseBusy")<{
  readonly dataDir: string
  readonly pid: number
  readonly url?: string | undefined
}> {
  override get message() {
    const where = `The embedded database in ${this.dataDir}`
    return this.url === undefined
      ? `${where} is in use by process ${this.pid} (a running Fidelis server?). ` +
          "Use --url to talk to that server, or stop it first."
      : `${where} belongs to the Fidelis server running at ${this.url} (process ${this.pid}). ` +
          `Use --url ${this.url} (with --api-key) to talk to it, or stop it first.`
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const LOCK_FILE = "fidelis.lock"

/** What no one but the data's owner may do: read, write or enter, as group or others. */
const NOT_OWNER = 0o077

/**
 * From now on this process creates files 0600 and folders 0700, whatever umask it was started
 * with: PGlite's file system creates the WAL segments and relation files Postgres adds later with
 * the process's umask, and a server started with the usual 022 would leave them readable by every
 * local user. Only ever narrows the umask (process-wide: the server's and CLI's other files, the
 * lock and the mail folder, are private too).
 */
const createPrivately = () => {
  process.umask(process.umask() | NOT_OWNER)
}

/**
 * Takes group and other permissions off everything under `dir` (itself included): PGlite's initdb
 * writes its files 0666 whatever the umask, it rewrites pg_internal.init 0644 on every start, and
 * a data directory made by an older version has them too. Links are left alone, never followed.
 */
const makePrivate = (dir: string) => {
  const walk = (path: string) => {
    const stats = lstatSync(path)
    if (stats.isSymbolicLink()) return
    if ((stats.mode & NOT_OWNER) !== 0) chmodSync(path, stats.mode & 0o7700)
    if (stats.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name))
  }
  walk(dir)
}

const readLock = (file: string) => JSON.parse(readFileSync(file, "utf8") || "{}") as Partial<LockOwner>

/**
 * An exclusive lock file next to the data. A lock whose process is gone is stale and taken over,
 * so a crash never leaves the database unusable.
 */
const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const file = join(dataDir, LOCK_FILE)
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const owner: LockOwner = { pid: process.pid, since: new Date().toISOString() }
          writeFileSync(file, JSON.stringify(owner), { flag: "wx" })
          return Effect.succeed(file)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") return Effect.die(error)
          const { pid, url } = readLock(file)
          if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid!)) {
            return Effect.fail(new EmbeddedDatabaseBusy({ dataDir: resolve(dataDir), pid: pid!, url }))
          }
          rmSync(file, { force: true })
        }
      }
      return Effect.fail(new EmbeddedDatabaseBusy({ dataDir: resolve(dataDir), pid: -1 }))
    }),
    (file) => Effect.sync(() => rmSync(file, { force: true }))
  )

/**
 * Records in the lock the URL this process serves the data on, so a CLI that finds the database
 * busy can name it (`--url …`). Only this process's own lock is touched, replaced in one rename so
 * a reader never sees it half-written; it leaves with the database when the server stops. Without
 * a lock (memory://, a real PostgreSQL) it does nothing.
 */
export const announceServer = (dataDir: string, url: string) => {
  if (dataDir === MEMORY) return
  const file = join(dataDir, LOCK_FILE)
  if (!existsSync(file)) return
  const owner = readLock(file)
  if (owner.pid !== process.pid) return
  const next = `${file}.${process.pid}`
  writeFileSync(next, JSON.stringify({ ...owner, url }))
  renameSync(next, file)
}

/**
 * Opens PGlite with the extensions the migrations use; every PGlite the project opens (embedded
 * server, tests, benchmarks) goes through here so the schema always loads. A `template` (a
 * `dumpDataDir` tarball) is the cluster it starts from instead of running initdb, which takes most
 * of an embedded start (docs/decisions.md "Embedded databases from a template").
 */
export const openPglite = (dataDir: string | undefined, template?: string) =>
  PGlite.create({
    dataDir,
    extensions: { pg_trgm },
    ...(template !== undefined && { loadDataDir: new Blob([readFileSync(template)]) })
  })

/**
 * Starts PGlite and serves it over the Postgres wire protocol on a private loopback port, so the
 * embedded and real databases share one driver and one SQL dialect. PGlite is a single session:
 * one connection only, or concurrent transactions would interleave. The data directory is its
 * owner's alone, 0700 with 0600 files, like PostgreSQL's own (docs/decisions.md, "Private files and
 * sealed server secrets").
 */
export const startEmbedded = (dataDir: string, template?: string) =>
  Effect.gen(function* () {
    const inMemory = dataDir === MEMORY
    if (!inMemory) {
      createPrivately()
      yield* lockDataDir(dataDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.promise(() => (inMemory ? openPglite(undefined, template) : openPglite(join(resolve(dataDir), "pg")))),
      (instance) => Effect.promise(() => instance.close()).pipe(Effect.ignore)
    )
    if (!inMemory) makePrivate(dataDir)
    const server = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const socket = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
        await socket.start()
        return socket
      }),
      (socket) => Effect.promise(() => socket.stop()).pipe(Effect.ignore)
    )
    const [host, port] = server.getServerConn().split(":")
    return { host: host ?? "127.0.0.1", port: Number(port) }
  })
