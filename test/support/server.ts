import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createRealDatabase, realServerUrl, type TestDatabase } from "@fidelis/db/testing"

export const ROOT = fileURLToPath(new URL("../..", import.meta.url))

export interface TestServer {
  readonly url: string
  readonly adminKey: string
  /** Everything the process printed so far. */
  output(): string
  /** Resolves with the output once it matches, e.g. a banner printed after startup. */
  waitForOutput(pattern: RegExp, ms?: number): Promise<string>
  /** SIGTERM, then SIGKILL if it does not exit in time; resolves with how it exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL at once, as a crash: nothing shuts down, in-flight work is left as it was. */
  crash(): Promise<void>
}

export interface StartOptions {
  readonly env?: Record<string, string>
  /** Share an existing database (two processes on one database); otherwise each server gets its own. */
  readonly databaseUrl?: string
  /** Force the embedded database even when TEST_DATABASE_URL is set (first-start behaviour). */
  readonly embedded?: boolean
  /**
   * Start it as `npm start` does: the server package's own start script, run from its folder
   * (apps/server), not the repository root. Relative paths in `env` then mean what they mean there.
   */
  readonly npmStart?: boolean
}

const SERVER_PACKAGE = join(ROOT, "apps", "server")

/** `npm start`'s command: `npm run start -w @fidelis/server`, i.e. that package's start script, from its folder. */
const npmStartCommand = () => {
  const manifest = JSON.parse(readFileSync(join(SERVER_PACKAGE, "package.json"), "utf8")) as {
    scripts: { start: string }
  }
  const [node, ...args] = manifest.scripts.start.split(" ")
  if (node !== "node")
    throw new Error(`apps/server's start script no longer starts with node: ${manifest.scripts.start}`)
  return { args, cwd: SERVER_PACKAGE }
}

const waitForExit = (child: ChildProcess, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(true)
    const timer = setTimeout(() => resolve(false), ms)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })

/**
 * Starts the real server (`apps/server/src/main.ts`) as a child process on a free port, on a
 * throwaway database: in-memory PGlite, or a fresh database on TEST_DATABASE_URL's server.
 */
export const startServer = async (options: StartOptions = {}): Promise<TestServer> => {
  const adminKey = `test-admin-${randomBytes(16).toString("hex")}`
  let database: TestDatabase | undefined
  let databaseUrl = options.databaseUrl
  if (databaseUrl === undefined && !options.embedded && realServerUrl() !== undefined) {
    database = await createRealDatabase(realServerUrl()!)
    databaseUrl = database.url
  }
  const { args, cwd } = options.npmStart
    ? npmStartCommand()
    : { args: ["--import", "tsx", "apps/server/src/main.ts"], cwd: ROOT }
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env["PATH"] ?? "",
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      FIDELIS_DEMO: "0",
      FIDELIS_ADMIN_KEY: adminKey,
      // Every test calls from 127.0.0.1, and many refuse wrong keys on purpose: the key-guessing
      // budget is the subject of test/security/key-guessing.test.ts alone, which sets its own.
      FIDELIS_KEY_FAILURES_PER_MINUTE: "100000",
      ...(databaseUrl !== undefined
        ? { DATABASE_URL: databaseUrl }
        : { FIDELIS_DATA_DIR: "memory://", FIDELIS_EMBEDDED_TEMPLATE: process.env["FIDELIS_EMBEDDED_TEMPLATE"] ?? "" }),
      ...options.env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), 90_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      for (const line of output.split("\n")) {
        if (!line.startsWith("{")) continue
        try {
          const entry = JSON.parse(line) as { message?: string; url?: string }
          if (entry.message === "listening" && entry.url) {
            clearTimeout(timer)
            resolve(entry.url)
          }
        } catch {
          // a partial line; the rest arrives with the next chunk
        }
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code} before listening:\n${output}`))
    })
  })
  return {
    url,
    adminKey,
    output: () => output,
    waitForOutput: async (pattern, ms = 10_000) => {
      const deadline = Date.now() + ms
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`output never matched ${pattern}:\n${output}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      return output
    },
    stop: async () => {
      child.kill("SIGTERM")
      if (!(await waitForExit(child, 15_000))) {
        child.kill("SIGKILL")
        await waitForExit(child, 5_000)
      }
      await database?.drop()
      return { code: child.exitCode, signal: child.signalCode }
    },
    crash: async () => {
      child.kill("SIGKILL")
      await waitForExit(child, 5_000)
      await database?.drop()
    }
  }
}
