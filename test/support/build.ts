import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { embeddedTemplate, realServerUrl, realTemplate } from "@fidelis/db/testing"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/**
 * Vitest's global setup: compiles the server and the CLI once per run, so the suites that start
 * `npm start`'s command or the `fidelis` binary run today's sources, not an older build; and makes
 * the migrated embedded cluster the throwaway servers start from (FIDELIS_EMBEDDED_TEMPLATE, which the
 * test processes inherit), so each skips initdb and the migrations; on a real server, the migrated
 * database each test database is copied from (TEST_DATABASE_TEMPLATE).
 */
export default async function build() {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" })
  process.env["FIDELIS_EMBEDDED_TEMPLATE"] ??= await embeddedTemplate(join(ROOT, "test", ".data"))
  const real = realServerUrl()
  if (real !== undefined) process.env["TEST_DATABASE_TEMPLATE"] ??= await realTemplate(real)
}
