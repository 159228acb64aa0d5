// The compiled CLI (scripts/build.mjs writes dist/cli.js and dist/build.json) and what keeps it
// current and quick to start. docs/decisions.md, "CLI start-up".
import { spawnSync } from "node:child_process"
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import vm from "node:vm"

const ROOT = new URL("../../../", import.meta.url)
const DIST = new URL("../dist/", import.meta.url)

const readBuild = () => {
  try {
    return JSON.parse(readFileSync(new URL("build.json", DIST), "utf8"))
  } catch {
    return undefined
  }
}

/**
 * The first workspace file the build was compiled from that changed (or went away) since: one
 * `stat` per file (about 200), a few milliseconds, where walking every source folder would cost more.
 */
export const changedInput = ({ inputs }, root = fileURLToPath(ROOT)) =>
  Object.keys(inputs).find((path) => statSync(root + path, { throwIfNoEntry: false })?.mtimeMs !== inputs[path])

/**
 * Whether dist/cli.js can run: compiled again first when a source changed since the build (or there
 * is none); false when compiling fails, and the bin runs the sources instead.
 */
export const ensureCompiled = () => {
  const build = readBuild()
  const changed = build === undefined ? undefined : changedInput(build)
  if (build !== undefined && changed === undefined) return true
  const reason = build === undefined ? "the CLI is not compiled yet" : `${changed} changed since the CLI was compiled`
  process.stderr.write(`fidelis: ${reason}; compiling it (npm run build)\n`)
  const script = fileURLToPath(new URL("scripts/build.mjs", ROOT))
  const { status } = spawnSync(process.execPath, [script, "cli"], { stdio: ["ignore", "ignore", "inherit"] })
  if (status === 0) return true
  process.stderr.write("fidelis: compiling failed; running the sources through tsx\n")
  return false
}

/** After the first run of a build, V8's code for the functions that ran, so later runs skip compiling them. */
const saveCache = (script, path) => {
  try {
    const partial = `${fileURLToPath(path)}.${process.pid}.partial`
    writeFileSync(partial, script.createCachedData())
    renameSync(partial, path)
  } catch {
    // A read-only checkout runs without the cache.
  }
}

/**
 * Runs dist/cli.js with V8's code cache: Node 20 has no compile cache for modules (enableCompileCache
 * came in 22.1), and compiling the 5 MB bundle was most of the CLI's start-up. V8 accepts a cache by
 * the source's length, not its text, so the cache is named after the build on the bundle's first line.
 */
export const runCompiled = () => {
  const file = fileURLToPath(new URL("cli.js", DIST))
  const source = readFileSync(file, "utf8")
  const build = /^\/\/ fidelis-cli build (\d+)/.exec(source)?.[1]
  // Without the build's number (a bundle from elsewhere) no cache is offered or saved.
  const cache = build === undefined ? undefined : new URL(`cli.${build}.v8cache`, DIST)
  let cachedData
  try {
    cachedData = cache === undefined ? undefined : readFileSync(cache)
  } catch {
    cachedData = undefined
  }
  // No import() runs in it (the migrations are bundled): Node 20 loses a script's import() callback
  // when V8 takes its code from the cache, and the callback itself is experimental there.
  const script = new vm.Script(source, { filename: file, cachedData })
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    process.once("exit", () => saveCache(script, cache))
  }
  script.runInThisContext()(createRequire(file), file)
}
