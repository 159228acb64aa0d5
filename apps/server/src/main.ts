// trpc-to-openapi re-validates the whole router on every request unless in production mode.
process.env.NODE_ENV ??= "production"

import { log, mailTarget, makeRuntime, publicUrlOf, seedDemoIfEmpty, startWorkers } from "@fidelis/core"
import { announceServer, openFailureReason } from "@fidelis/db"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { toNodeHandler } from "srvx/node"
import { createApp } from "./app.js"
import { demoBanner, localUrl } from "./banner.js"
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
  await fail("could not open the database", openFailureReason(error))
}

const seeding = performance.now()
const demo =
  config.demo && config.core.databaseUrl === undefined ? await runtime.runPromise(seedDemoIfEmpty) : undefined
if (demo !== undefined) {
  log("info", "demo tenant created", { empresa: demo.empresa.id_name, ms: Math.round(performance.now() - seeding) })
}

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
// The URL a person or a CLI on this machine uses; a wildcard HOST is reached on loopback.
const url = localUrl(config.host, port)
const embedded = config.core.databaseUrl === undefined
// Links in emails: FIDELIS_PUBLIC_URL, else this server's own address.
const publicUrl = publicUrlOf(config.core, url)
log("info", "listening", {
  url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
  docs: `${url}/docs`,
  database: embedded ? "embedded" : "postgres",
  ...(embedded ? { data_dir: config.core.dataDir } : {}),
  public_url: publicUrl,
  mail: await runtime.runPromise(mailTarget)
})
// A test-only setting; said loudly, so a production server never runs with its deadlines moved.
if (config.core.clockOffsetSeconds !== 0) {
  log("warn", "FIDELIS_CLOCK_OFFSET_SECONDS is set: deadlines are judged in the future (for tests only)", {
    clock_offset_seconds: config.core.clockOffsetSeconds
  })
}
// A CLI started without --url finds the database locked and is told this URL.
if (embedded) announceServer(config.core.dataDir, url)
const stopHousekeeping = startHousekeeping(runtime, config.core.housekeepingSeconds * 1000)
const workers = startWorkers(runtime, { publicUrl })

if (demo !== undefined) {
  const banner = demoBanner({
    url,
    empresaName: demo.empresa.name,
    empresaSlug: demo.empresa.id_name,
    key: demo.key,
    clientId: demo.clientId
  })
  // After the start-up log lines, which go out on the next turn of the event loop: the guide ends the output.
  setImmediate(() => process.stdout.write(`${banner}\n`))
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
  // Workers stop claiming at once; a send in hand finishes (or its lease brings it back later).
  const workersStopped = workers.stop(config.shutdownGraceSeconds * 1000)
  server.close(async () => {
    clearInterval(reaper)
    clearTimeout(force)
    await workersStopped
    await runtime.dispose()
    log("info", "stopped")
    process.exit(0)
  })
  server.closeIdleConnections()
}
process.on("SIGTERM", () => shutdown("SIGTERM"))
process.on("SIGINT", () => shutdown("SIGINT"))
