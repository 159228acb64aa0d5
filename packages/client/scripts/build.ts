// Builds dist/: index.js (esbuild, the workspace code inlined) and one self-contained index.d.ts
// (tsc's declarations bundled by rollup-plugin-dts), so installing needs no @fidelis/* or effect.
import { execFileSync } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { rollup, type Plugin } from "rollup"
import { dts } from "rollup-plugin-dts"

const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
const TYPES = resolve(PACKAGE, "dist/.types")
const CORE_TYPES = resolve(TYPES, "packages/core/src")
const OPAQUE = resolve(PACKAGE, "scripts/opaque.d.ts")
/**
 * Imports left as they are: the package's dependencies, and effect, which only declarations the
 * client never uses refer to (tree-shaking drops them; inlined, its module augmentations would stay).
 * Everything else, zod's `$brand` included, is inlined.
 */
const EXTERNAL = /^(@trpc\/client|@trpc\/server|openapi-fetch|effect)(\/|$)/
/** Server-side modules that must not be imported by the published types. */
const SERVER_ONLY = /(?:from|import\()\s*["'](@fidelis\/[^"']*|effect|@effect\/[^"']*|zod)(?:\/[^"']*)?["']/

rmSync(resolve(PACKAGE, "dist/index.js"), { force: true })
rmSync(resolve(PACKAGE, "dist/index.d.ts"), { force: true })
rmSync(TYPES, { recursive: true, force: true })

await build({
  entryPoints: [resolve(PACKAGE, "src/index.ts")],
  outfile: resolve(PACKAGE, "dist/index.js"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: ["@trpc/client", "openapi-fetch"],
  logLevel: "warning"
})

execFileSync(
  process.execPath,
  [resolve(PACKAGE, "../../node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
  {
    cwd: PACKAGE,
    stdio: "inherit"
  }
)

/** Points the workspace packages at tsc's declarations, and the context and metadata at opaque stand-ins. */
const workspaceTypes: Plugin = {
  name: "fidelis-workspace-types",
  resolveId(source, importer) {
    if (source === "@fidelis/core/client") return resolve(CORE_TYPES, "client.d.ts")
    if (importer?.startsWith(CORE_TYPES) && /^\.\.?\/.*(context|meta)\.js$/.test(source)) {
      const target = resolve(dirname(importer), source)
      if (target === resolve(CORE_TYPES, "context.js") || target === resolve(CORE_TYPES, "meta.js")) return OPAQUE
    }
    return null
  }
}

const bundle = await rollup({
  input: resolve(TYPES, "packages/client/src/index.d.ts"),
  external: (id) => EXTERNAL.test(id),
  plugins: [workspaceTypes, dts({ respectExternal: true })]
})
await bundle.write({ file: resolve(PACKAGE, "dist/index.d.ts"), format: "es" })
await bundle.close()
rmSync(TYPES, { recursive: true, force: true })

const leak = SERVER_ONLY.exec(readFileSync(resolve(PACKAGE, "dist/index.d.ts"), "utf8"))
if (leak) throw new Error(`dist/index.d.ts still imports ${leak[1]}: the published types must stand alone`)
