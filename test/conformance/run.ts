/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
 * the real server's /mcp and fails on any result the baseline does not expect, including a
 * baseline entry that started passing. Usage: `npm run test:mcp-conformance`.
 *
 * `--suite all`: the default "active" suite leaves out the scenarios 0.1.11 marks pending, and one
 * of them, json-schema-2020-12, is a protocol check this server must pass.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createTenant } from "../support/http.js"
import { ROOT, startServer } from "../support/server.js"

const BASELINE = join(ROOT, "test/conformance/baseline.yml")
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

/**
 * The suite's client cannot send an API key, so a loopback proxy adds one. Everything else,
 * Host and Origin included, passes through untouched: the DNS-rebinding scenario depends on them.
 */
const startKeyProxy = (target: URL, key: string) =>
  new Promise<Server>((resolve) => {
    const proxy = createServer((req, res) => {
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, "x-api-key": key }
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      upstream.on("error", (error) => res.writeHead(502).end(error.message))
      req.pipe(upstream)
    })
    proxy.listen(0, "127.0.0.1", () => resolve(proxy))
  })

const runSuite = (url: string, outputDir: string) =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [SUITE, "server", "--url", url, "--suite", "all", "--expected-failures", BASELINE, "--output-dir", outputDir],
      { cwd: ROOT, stdio: "inherit" }
    )
    child.once("error", reject)
    child.once("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })

// The suite opens a session per scenario; the default 60 requests a minute per key would refuse
// the run halfway (429), which is the rate limiter working, not a protocol failure. The fixtures
// flag lists the suite's json_schema_2020_12_tool (a test fixture, off in every other run).
const server = await startServer({
  env: { FIDELIS_RATE_LIMIT_PER_MINUTE: "100000", FIDELIS_MCP_CONFORMANCE_FIXTURES: "1" }
})
let exitCode = 1
const outputDir = mkdtempSync(join(tmpdir(), "fidelis-mcp-conformance-"))
try {
  const tenant = await createTenant(server)
  const proxy = await startKeyProxy(new URL(server.url), tenant.key)
  try {
    const { port } = proxy.address() as AddressInfo
    exitCode = await runSuite(`http://127.0.0.1:${port}/mcp`, outputDir)
  } finally {
    proxy.closeAllConnections()
    await new Promise((resolve) => proxy.close(resolve))
  }
} finally {
  await server.stop()
  if (exitCode === 0) rmSync(outputDir, { recursive: true, force: true })
  else console.error(`Conformance results (checks.json per scenario) kept in ${outputDir}`)
}
process.exitCode = exitCode
