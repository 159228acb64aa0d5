// The shape of packages/core/src (docs/architecture.md), checked on every `npm run lint`:
// - the kernel (the files at the root, but for the composition root below) imports no area;
// - an area reaches another only through its doors: service.ts, contracts.ts, index.ts;
// - no area imports the composition root, and areas import one another without a loop.
// It prints how many imports run back up (against the order kernel < areas < composition root).
// `node scripts/doors.mjs [dir]` checks another tree (its test feeds it small ones).
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, posix, relative, resolve, sep } from "node:path"

const root = resolve(process.argv[2] ?? "packages/core/src")

// The composition root: it wires every area (router, runtime, demo data, workers), so it stands above them all.
const COMPOSITION = new Set([
  "index.ts",
  "router.ts",
  "runtime.ts",
  "catalogue.ts",
  "client.ts",
  "demo.ts",
  "workers.ts",
  "maintenance.ts"
])
const DOORS = new Set(["service.ts", "contracts.ts", "index.ts"])

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return walk(path)
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : []
  })

/** Where a file stands: the kernel, an area (its first folder), or the composition root. */
const placeOf = (file) => {
  const parts = file.split("/")
  if (parts.length > 1) return { layer: "area", area: parts[0] }
  return COMPOSITION.has(file) ? { layer: "composition" } : { layer: "kernel" }
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

const files = walk(root).map((path) => relative(root, path).split(sep).join("/"))
const imports = files.flatMap((file) =>
  [...readFileSync(join(root, file), "utf8").matchAll(IMPORT)]
    .map((match) => match[1] ?? match[2])
    .filter((target) => target.startsWith("."))
    .map((target) => ({
      file,
      target: posix.normalize(posix.join(posix.dirname(file), target)).replace(/\.js$/, ".ts")
    }))
)

const problems = []
const areaEdges = new Map()
for (const { file, target } of imports) {
  const from = placeOf(file)
  const to = placeOf(target)
  if (from.layer === "kernel" && to.layer !== "kernel") {
    problems.push(`${file} imports ${target}: the kernel imports no area and not the composition root`)
  } else if (from.layer === "area" && to.layer === "composition") {
    problems.push(`${file} imports ${target}: an area never imports the composition root`)
  } else if (from.layer === "area" && to.layer === "area" && from.area !== to.area) {
    const door = target.split("/").slice(1).join("/")
    if (!DOORS.has(door)) {
      problems.push(`${file} imports ${target}: past ${to.area}'s door (its service.ts, contracts.ts or index.ts)`)
    }
    if (!areaEdges.has(from.area)) areaEdges.set(from.area, new Set())
    areaEdges.get(from.area).add(to.area)
  }
}

// Tarjan's strongly connected components: every one larger than an area is a loop.
const loops = []
{
  let next = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const visit = (area) => {
    index.set(area, next)
    low.set(area, next++)
    stack.push(area)
    onStack.add(area)
    for (const to of areaEdges.get(area) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(area, Math.min(low.get(area), low.get(to)))
      } else if (onStack.has(to)) low.set(area, Math.min(low.get(area), index.get(to)))
    }
    if (low.get(area) === index.get(area)) {
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== area)
      if (component.length > 1) loops.push(component.toSorted())
    }
  }
  for (const area of areaEdges.keys()) if (!index.has(area)) visit(area)
}
for (const loop of loops) problems.push(`areas import one another in a loop: ${loop.join(", ")}`)

// An import runs back up when it goes from a lower place to a higher one, or between areas of one loop.
const rank = { kernel: 0, area: 1, composition: 2 }
const inLoop = (a, b) => loops.some((loop) => loop.includes(a) && loop.includes(b))
const backUp = imports.filter(({ file, target }) => {
  const [from, to] = [placeOf(file), placeOf(target)]
  if (rank[from.layer] < rank[to.layer]) return true
  return from.layer === "area" && to.layer === "area" && from.area !== to.area && inLoop(from.area, to.area)
}).length

const areas = new Set(files.map(placeOf).flatMap((place) => (place.area ? [place.area] : [])))
console.log(
  `doors: ${files.length} files, ${imports.length} imports, ${areas.size} areas; ` +
    `${loops.length} area loops, ${backUp} imports back up`
)
for (const problem of problems) console.error(problem)
if (problems.length > 0) process.exit(1)
