import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll } from "vitest"
import { createTenant, type Tenant } from "./http.js"
import { connectMcp } from "./mcp.js"
import { startServer, type StartOptions, type TestServer } from "./server.js"

// The vitest hooks, apart from server.ts because they need vitest: scripts outside a test run
// (the MCP conformance runner) start servers too, and vitest refuses to load there.

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
    stop: () => current().stop(),
    crash: () => current().crash()
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
