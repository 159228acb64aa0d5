// trpc-to-openapi re-validates the whole router on every request unless in production mode.
process.env.NODE_ENV ??= "production"

import { log, makeRuntime, seedDemoIfEmpty } from "@fidelis/core"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { toNodeHandler } from "srvx/node"
import { createApp } from "./app.js"
import { serverConfigFromEnv } from "./config.js"
import { startHousekeeping } from "./housekeeping.js"

const config = serverConfigFromEnv()
const runtime = makeRuntime(config.core)

const fail = async (message: string, error: unknown) => {
  log("error", message, { error: error instanceof Error ? error.message : String(error) })
  await runtime.dispose().catch(() => undefined)
  process.exit(1)
}

try {
  await runtime.runtime()
} catch (error) {
  await fail("could not open the database", error)
}

const demo =
  config.demo && config.core.databaseUrl === undefined ? await runtime.runPromise(seedDemoIfEmpty) : undefined

// srvx types its handler for HTTP/1 and HTTP/2 at once; this server is HTTP/1.
const app = createApp({
  runtime,
  allowedOrigins: config.allowedOrigins,
  mcpConformanceFixtures: config.mcpConformanceFixtures,
  maxBodyBytes: config.maxBodyBytes
})
const handler = toNodeHandler(app) as unknown as RequestListener
const server = createServer(handler)
server.keepAliveTimeout = 65_000
await new Promise<void>((resolve, reject) => {
  server.once("error", reject)
  server.listen(config.port, config.host, resolve)
}).catch((error) => fail(`could not listen on ${config.host}:${config.port}`, error))

const { port } = server.address() as AddressInfo
const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`
log("info", "listening", {
  url,
  database: config.core.databaseUrl === undefined ? `embedded (${config.core.dataDir})` : "postgres"
})
const stopHousekeeping = startHousekeeping(runtime)

if (demo !== undefined) {
  process.stdout.write(
    [
      "",
      `  Demo empresa "${demo.empresa.name}" created. Its API key (shown only now):`,
      "",
      `    ${demo.key}`,
      "",
      "  Try it:",
      "",
      `    curl -s ${url}/api/v1/public/clients -H 'X-API-Key: ${demo.key}'`,
      "",
      `  API reference: ${url}/docs`,
      ""
    ].join("\n") + "\n"
  )
}

let stopping = false
const shutdown = (signal: string) => {
  if (stopping) return
  stopping = true
  log("info", "shutting down", { signal })
  stopHousekeeping()
  // Keep-alive connections become idle as their last response goes out; close each as it does.
  const reaper = setInterval(() => server.closeIdleConnections(), 50)
  const force = setTimeout(() => server.closeAllConnections(), config.shutdownGraceSeconds * 1000)
  force.unref()
  server.close(async () => {
    clearInterval(reaper)
    clearTimeout(force)
    await runtime.dispose()
    log("info", "stopped")
    process.exit(0)
  })
  server.closeIdleConnections()
}
process.on("SIGTERM", () => shutdown("SIGTERM"))
process.on("SIGINT", () => shutdown("SIGINT"))
