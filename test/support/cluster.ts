import { execFile } from "node:child_process"
import { chown, mkdtemp, readdir, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

/** A PostgreSQL server of the test's own, to stop and restart at will. */
export interface PrivateCluster {
  readonly url: string
  start(): Promise<void>
  stop(): Promise<void>
  restart(): Promise<void>
  /** Stops it and deletes its files. */
  destroy(): Promise<void>
}

const ROOT = "/usr/lib/postgresql"

/** The newest installed server's binaries, or undefined when none is installed. */
export const postgresBinaries = async (): Promise<string | undefined> => {
  const versions = await readdir(ROOT).catch(() => [] as string[])
  const newest = versions.filter((v) => /^\d+$/.test(v)).toSorted((a, b) => Number(b) - Number(a))[0]
  return newest === undefined ? undefined : join(ROOT, newest, "bin")
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/**
 * A temporary directory for a server that refuses to run as root (postgres, pgbouncer): as root,
 * owned by the `postgres` user, whom the server then runs as.
 */
export const serverTempDir = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const [uid, gid] = await Promise.all(
      ["-u", "-g"].map(async (flag) => Number((await run("id", [flag, "postgres"])).stdout))
    )
    await chown(dir, uid!, gid!)
  }
  return { dir, asRoot }
}

/** initdb into a temporary directory and start it on a free loopback port with trust auth. */
export const startPrivateCluster = async (bin: string): Promise<PrivateCluster> => {
  const { dir, asRoot } = await serverTempDir("fidelis-pg-")
  const as = (command: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args)
  const data = join(dir, "data")
  const port = await freePort()
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const pgCtl = (...args: string[]) => as("pg_ctl", ["-D", data, "-w", "-t", "30", ...args]).then(() => undefined)
  const cluster: PrivateCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl("-o", options, "-l", join(dir, "log"), "start"),
    stop: () => pgCtl("-m", "fast", "stop"),
    restart: () => pgCtl("-m", "fast", "-o", options, "-l", join(dir, "log"), "restart"),
    destroy: async () => {
      await cluster.stop().catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    }
  }
  await cluster.start()
  return cluster
}
