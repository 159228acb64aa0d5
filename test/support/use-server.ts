import { afterAll, beforeAll } from "vitest"
import { startServer, type StartOptions, type TestServer } from "./server.js"

// Apart from server.ts because it needs vitest: scripts outside a test run (the MCP conformance
// runner) start servers too, and vitest refuses to load there.
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
