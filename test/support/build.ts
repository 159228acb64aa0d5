import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/**
 * Vitest's global setup: compiles the server and the CLI once per run, so the suites that start
 * `npm start`'s command or the `fidelis` binary run today's sources, not an older build.
 */
export default function build() {
  execFileSync(process.execPath, ["scripts/build.mjs"], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: "inherit"
  })
}
