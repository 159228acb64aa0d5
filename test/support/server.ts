import { afterAll, beforeAll } from "vitest"
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { createRealDatabase, realServerUrl, type TestDatabase } from "@fidelis/db/testing"
import { createTenant, type Tenant } from "./http.js"
import { connectMcp } from "./mcp.js"

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
}

export interface StartOptions {
  readonly env?: Record<string, string>
  /** Share an existing database (two processes on one database); otherwise each server gets its own. */
  readonly databaseUrl?: string
  /** Force the embedded database even when TEST_DATABASE_URL is set (first-start behaviour). */
  readonly embedded?: boolean
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
  const child = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env["PATH"] ?? "",
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      FIDELIS_DEMO: "0",
      FIDELIS_ADMIN_KEY: adminKey,
      ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : { FIDELIS_DATA_DIR: "memory://" }),
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
    }
  }
}

/**
 * One server for the whole file: started before its first test and stopped after its last. The
 * handle can be taken at module level; it reads the started server when a test or hook uses it.
 */
export const useServer = (options: StartOptions = {}): TestServer => {
  let started: TestServer | undefined
  beforeAll(async () => {
    started = await startServer(options)
  })
  afterAll(async () => {
    await started?.stop()
    // Production answers a refusal its procedure did not declare, and logs it; a test run fails on it.
    const undeclared = started?.output().match(/.*Undeclared refusal.*/)
    if (undeclared) throw new Error(`A procedure refused with a code it does not declare: ${undeclared[0]}`)
  })
  const current = () => {
    if (started === undefined) throw new Error("useServer: the server starts in beforeAll; use it in a test or a hook")
    return started
  }
  return {
    get url() {
      return current().url
    },
    get adminKey() {
      return current().adminKey
    },
    output: () => current().output(),
    waitForOutput: (pattern, ms) => current().waitForOutput(pattern, ms),
    stop: () => current().stop()
  }
}

/**
 * Stands for a value a `beforeAll` sets, so the handle can be taken at module level like
 * useServer's; reading it before the hook ran is an error, not an undefined.
 */
const setLater = <T extends object>(what: string, current: () => T | undefined): T =>
  new Proxy({} as T, {
    get: (_, property) => {
      const target = current()
      if (target === undefined) throw new Error(`${what} is set in beforeAll; use it in a test or a hook`)
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/** One tenant for the file (or the describe block), created once its server has started. */
export const useTenant = (server: TestServer, options: { apiAccess?: boolean } = {}): Tenant => {
  let tenant: Tenant | undefined
  beforeAll(async () => {
    tenant = await createTenant(server, options)
  })
  return setLater("useTenant's tenant", () => tenant)
}

/** An MCP client on the tenant's key for the file, closed after its last test. */
export const useMcp = (server: TestServer, tenant: Tenant): Client => {
  let client: Client | undefined
  beforeAll(async () => {
    client = await connectMcp(server, tenant.key)
  })
  afterAll(async () => {
    await client?.close()
  })
  return setLater("useMcp's client", () => client)
}
