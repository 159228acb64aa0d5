/**
 * Where a server's CPU went, from a profile that `npm run bench -- --profile` wrote:
 *
 *   node --import tsx bench/profile-summary.ts bench/profiles/<run>/postgres-fidelis-database [--skip=5] [--top=30]
 *
 * Self time (samples where the function itself ran, not its callees), by area and by function, as a
 * share of the busy samples (idle left out). `--skip` drops the first seconds (start-up, the bench's
 * sign-in). The compiled server bundles the workspace's code, so its frames are mapped back to their
 * sources through the bundle's source map; npm packages run from node_modules and are named by it. A
 * folder stands for its process's main-thread profile (node names it `CPU.<date>.<time>.<pid>.0.<n>`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { SourceMap, type SourceMapping } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { skip: { type: "string", default: "5" }, top: { type: "string", default: "30" } }
})
if (positionals.length !== 1) throw new Error("usage: profile-summary.ts <profile or its folder> [--skip=5] [--top=30]")
const path = positionals[0]!
const mainThread = statSync(path).isDirectory()
  ? readdirSync(path).find((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name))
  : undefined
const profile = JSON.parse(readFileSync(mainThread === undefined ? path : join(path, mainThread), "utf8")) as Profile

const maps = new Map<string, SourceMap | undefined>()
/** The bundle's source map, if the frame's file is ours and has one beside it. */
const mapOf = (url: string) => {
  if (url.includes("/node_modules/")) return undefined
  if (!maps.has(url)) {
    try {
      maps.set(url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, "utf8"))))
    } catch {
      maps.set(url, undefined)
    }
  }
  return maps.get(url)
}

/** A frame's source file and line (from 1): through the source map for a bundle, else its own. */
const sourceOf = (frame: CallFrame) => {
  const map = frame.url.startsWith("file:") ? mapOf(frame.url) : undefined
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber)
  return entry !== undefined && "originalSource" in entry
    ? { source: (entry as SourceMapping).originalSource, line: (entry as SourceMapping).originalLine + 1 }
    : { source: frame.url, line: frame.lineNumber + 1 }
}

/** The area a source belongs to: an npm package, a workspace package, Node's internals or V8's own work. */
const areaOf = (frame: CallFrame, source: string) => {
  if (frame.url === "") return frame.functionName.startsWith("(") ? frame.functionName : "(native)"
  if (source.startsWith("node:")) return source.split("/")[0]!
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)
  if (npm) return npm[1]!
  const workspace = /(packages|apps)\/([^/]+)\/src\/(?:([^/]+)\/)?/.exec(source)
  if (workspace) return `@fidelis/${workspace[2]}${workspace[3] ? `/${workspace[3]}` : ""}`
  return source
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const byArea = new Map<string, number>()
const byFunction = new Map<string, number>()
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us)
let elapsed = 0
let busy = 0
const skipUs = Number(args.skip) * 1e6
for (const [i, id] of profile.samples.entries()) {
  const delta = profile.timeDeltas[i] ?? 0
  elapsed += delta
  const { callFrame } = byId.get(id)!
  if (elapsed < skipUs || callFrame.functionName === "(idle)") continue
  const { source, line } = sourceOf(callFrame)
  const area = areaOf(callFrame, source)
  busy += delta
  add(byArea, area, delta)
  const file = source.replace(/^.*\/(node_modules|packages|apps)\//, "")
  add(byFunction, `${callFrame.functionName || "(anonymous)"}  ${file}:${line}`, delta)
}

const table = (title: string, map: Map<string, number>, top: number) => {
  process.stdout.write(`\n${title}\n`)
  for (const [key, us] of [...map].toSorted((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}\n`)
  }
}
process.stdout.write(`busy ${(busy / 1e6).toFixed(2)} s of CPU samples after the first ${args.skip} s\n`)
table("self time by area", byArea, 25)
table("self time by function", byFunction, Number(args.top))
