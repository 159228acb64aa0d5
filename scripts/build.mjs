// Compiles the server and the CLI to JavaScript (apps/server/dist, packages/cli/dist): one ES module
// each, the workspace's TypeScript bundled in, npm dependencies left to node_modules. Runs on
// `npm install` (postinstall), before `npm start` and before the tests; esbuild takes about a second.
// docs/decisions.md, "Compiled JavaScript for the server and the CLI".
import { build } from "esbuild"
import { readdir, readFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")

const TARGETS = [
  { entry: "apps/server/src/main.ts", outfile: "apps/server/dist/main.js", sourcemap: true },
  // No source map: loading one would cost the CLI part of the start-up it is compiled for.
  { entry: "packages/cli/src/main.ts", outfile: "packages/cli/dist/main.js", sourcemap: false }
]

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

const compile = async ({ entry, outfile, sourcemap }) => {
  const outdir = dirname(join(ROOT, outfile))
  const modules = []
  const plugins = [dependenciesOutside(outdir), sourceRelativeUrls(outdir, modules)]
  await build({ ...common, entryPoints: [entry], outfile, sourcemap, plugins })
  for (const { from, to } of modules) {
    const entryPoints = (await readdir(from)).filter((file) => file.endsWith(".ts")).map((file) => join(from, file))
    await build({ ...common, entryPoints, outdir: to, sourcemap, plugins })
  }
}

await Promise.all(TARGETS.map(compile))
