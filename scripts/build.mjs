// Compiles the server and the CLI to JavaScript (apps/server/dist, packages/cli/dist): one ES module
// each, with the workspace's TypeScript bundled in (and, for the CLI, its npm dependencies). Runs on
// `npm install` (postinstall), before `npm start` and before the tests; esbuild takes about a second.
// docs/decisions.md, "Compiled JavaScript for the server and the CLI".
import { build } from "esbuild"
import { readdir, readFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")

const TARGETS = [
  { entry: "apps/server/src/main.ts", outfile: "apps/server/dist/main.js", sourcemap: true, dependencies: "outside" },
  // Start-up is what the CLI is compiled for: its npm dependencies are bundled in too (resolving and
  // compiling ~2,000 modules one by one was a third of it), and it loads no source map.
  { entry: "packages/cli/src/main.ts", outfile: "packages/cli/dist/main.js", sourcemap: false, dependencies: "inside" }
]

/**
 * Packages that stay outside even a self-contained bundle: PGlite and its socket server load their
 * WebAssembly and data files from beside their own modules.
 */
const ALWAYS_OUTSIDE = ["@electric-sql/*", "pg-native"]

/** `require` for the CommonJS dependencies bundled into an ES module. */
const REQUIRE_SHIM = `import { createRequire as __createRequire } from "node:module";
const require = __createRequire(import.meta.url);`

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
 * always has (the pages' CSS and scripts). A folder of modules loaded at run time (the migrations)
 * keeps its name and is compiled beside the bundle instead, into `modules`.
 */
const sourceRelativeUrls = (outdir, modules) => ({
  name: "source-relative-urls",
  setup(b) {
    b.onLoad({ filter: /\/(packages|apps)\/[^/]+\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8")
      const contents = text.replace(/new URL\("(\.{1,2}\/[^"]*)", import\.meta\.url\)/g, (url, path) => {
        const target = fileURLToPath(new URL(path, pathToFileURL(args.path)))
        if (path.endsWith("/")) {
          modules.push({ from: target, to: join(outdir, path) })
          return url
        }
        const rebased = relative(outdir, target).split("\\").join("/")
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

const compile = async ({ entry, outfile, sourcemap, dependencies }) => {
  const outdir = dirname(join(ROOT, outfile))
  const modules = []
  const options =
    dependencies === "inside"
      ? { ...common, sourcemap, external: ALWAYS_OUTSIDE, banner: { js: REQUIRE_SHIM } }
      : { ...common, sourcemap, plugins: [dependenciesOutside(outdir)] }
  const plugins = [...(options.plugins ?? []), sourceRelativeUrls(outdir, modules)]
  await build({ ...options, entryPoints: [entry], outfile, plugins })
  for (const { from, to } of modules) {
    const entryPoints = (await readdir(from)).filter((file) => file.endsWith(".ts")).map((file) => join(from, file))
    await build({ ...options, entryPoints, outdir: to, plugins })
  }
}

await Promise.all(TARGETS.map(compile))
