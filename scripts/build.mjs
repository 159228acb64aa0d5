// Compiles the server and the CLI to JavaScript (apps/server/dist, packages/cli/dist), with the
// workspace's TypeScript bundled in (and, for the CLI, its npm dependencies). Runs on `npm install`
// (postinstall), before `npm start` and before the tests, and from the `fidelis` bin when a source
// changed since (`node scripts/build.mjs cli` builds the CLI alone); esbuild takes about a second.
// docs/decisions.md, "Compiled JavaScript for the server and the CLI" and "CLI start-up".
import { build } from "esbuild"
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { trpcCliImports } from "./trpc-cli-imports.mjs"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Packages that stay outside even a self-contained bundle: PGlite and its socket server load their
 * WebAssembly and data files from beside their own modules.
 */
const ALWAYS_OUTSIDE = ["@electric-sql/*", "pg-native"]

/**
 * An npm dependency stays an import when the bundle finds the same copy from its own folder; one
 * only its importer sees (a nested node_modules, such as a second major version) is bundled in.
 */
const dependenciesOutside = (outdir) => ({
  name: "dependencies-outside",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "inner" || args.path.startsWith("@fidelis/") || args.path.startsWith("node:")) return
      const options = { kind: args.kind, pluginData: "inner" }
      const fromImporter = await b.resolve(args.path, { ...options, resolveDir: args.resolveDir })
      // From the package's folder, which exists before the first build: the same lookup as from dist/.
      const fromBundle = await b.resolve(args.path, { ...options, resolveDir: dirname(outdir) })
      if (fromImporter.errors.length > 0 || fromImporter.path !== fromBundle.path) return
      return { path: args.path, external: true }
    })
  }
})

/**
 * `new URL("./page.css", import.meta.url)` names a file beside its source module; in the bundle,
 * `import.meta.url` is the bundle's, so the path is rebased onto the source tree, which a checkout
 * always has (the pages' CSS and scripts).
 */
const sourceRelativeUrls = (outdir) => ({
  name: "source-relative-urls",
  setup(b) {
    b.onLoad({ filter: /\/(packages|apps)\/[^/]+\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8")
      const contents = text.replace(/new URL\("(\.{1,2}\/[^"]*)", import\.meta\.url\)/g, (url, path) => {
        const rebased = relative(outdir, fileURLToPath(new URL(path, pathToFileURL(args.path))))
          .split("\\")
          .join("/")
        return `new URL(${JSON.stringify(rebased.startsWith(".") ? rebased : `./${rebased}`)}, import.meta.url)`
      })
      return { contents, loader: "ts" }
    })
  }
})

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning"
}

/** The server: npm dependencies stay in node_modules, with a source map for readable 5xx stack traces. */
const compileServer = async () => {
  const outfile = "apps/server/dist/main.js"
  const outdir = dirname(join(ROOT, outfile))
  const plugins = [dependenciesOutside(outdir), sourceRelativeUrls(outdir)]
  await build({ ...common, sourcemap: true, plugins, entryPoints: ["apps/server/src/main.ts"], outfile })
}

const CLI_DIST = join(ROOT, "packages/cli/dist")

/** Written, then renamed into place: a `fidelis` running meanwhile reads the old file or the new one. */
const replaceFile = async (path, contents) => {
  const partial = `${path}.${process.pid}.partial`
  await writeFile(partial, contents)
  await rename(partial, path)
}

/**
 * The CLI, for start-up: its npm dependencies bundled in too (resolving and compiling ~2,000 modules
 * one by one was a third of it), no source map, and one function expression (`cli.js`) rather than
 * a module, which bin/fidelis.js compiles with V8's code cache (Node 20 has no compile cache for ES
 * modules). `build.json` names the build (the bundle's first line repeats it, keying the cache) and
 * lists the workspace files it was compiled from with their mtimes, which the bin checks for edits.
 */
const compileCli = async () => {
  const started = Date.now()
  const result = await build({
    ...common,
    entryPoints: ["packages/cli/src/main.ts"],
    outfile: join(CLI_DIST, "cli.js"),
    format: "cjs",
    external: ALWAYS_OUTSIDE,
    plugins: [trpcCliImports, sourceRelativeUrls(CLI_DIST)],
    define: { "import.meta.url": "__importMetaUrl" },
    banner: {
      js: `// fidelis-cli build ${started}: run by bin/fidelis.js (a function expression, not a module)
(function (require, __filename) {
"use strict";
const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;`
    },
    footer: { js: "})" },
    metafile: true,
    write: false
  })
  const inputs = {}
  for (const path of Object.keys(result.metafile.inputs)) {
    if (path.includes("node_modules/")) continue
    const { mtimeMs } = await stat(join(ROOT, path))
    // Edited while esbuild ran: the bundle may hold the older text, so the next run compiles again.
    inputs[path] = mtimeMs > started ? 0 : mtimeMs
  }
  await mkdir(CLI_DIST, { recursive: true })
  for (const cache of await readdir(CLI_DIST)) {
    if (cache.endsWith(".v8cache")) await rm(join(CLI_DIST, cache))
  }
  await replaceFile(join(CLI_DIST, "cli.js"), result.outputFiles[0].contents)
  await replaceFile(join(CLI_DIST, "build.json"), JSON.stringify({ build: started, inputs }))
}

const TARGETS = { server: compileServer, cli: compileCli }

const only = process.argv[2]
await Promise.all(Object.entries(TARGETS).flatMap(([name, compile]) => (only && only !== name ? [] : [compile()])))
