// Lints the OpenAPI documents the server serves with Redocly (redocly.yaml), without starting it.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { configFromEnv } from "@fidelis/core"
import { restApis, restDocument } from "../apps/server/src/app.js"

const config = configFromEnv()
const dir = mkdtempSync(join(tmpdir(), "fidelis-openapi-"))
try {
  const files = restApis.map((api) => {
    const file = join(dir, `${api.base.split("/").at(-1)}.json`)
    writeFileSync(file, JSON.stringify(restDocument(api, config.publicUrl, config.idempotencyTtlSeconds)))
    return file
  })
  const { status } = spawnSync("redocly", ["lint", "--format=summary", ...files], {
    stdio: "inherit",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
  })
  process.exitCode = status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
