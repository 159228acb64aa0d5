import { mkdirSync, writeFileSync } from "node:fs"
import type { Measure, Pass } from "./measure.js"
import { options, ROOT, RUN } from "./options.js"

const report = (name: string, m: Measure) =>
  `${name} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(4)} ms  ` +
  `p99 ${String(m.p99).padStart(4)} ms` +
  (m.cpuMsPerRequest === undefined ? "" : `  cpu ${m.cpuMsPerRequest.toFixed(3)} ms/req`) +
  (m.writesPerRequest === undefined ? "" : `  writes ${m.writesPerRequest.toFixed(2)}/req`) +
  (m.non2xx + m.errors > 0 ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : "") +
  (m.memory === undefined ? "" : `  rss ${m.memory.before}/${m.memory.peak}/${m.memory.after} MB`)

/** The pass with the median CPU per request (the lower of the two middle ones for an even count). */
const median = (passes: ReadonlyArray<Pass>): Pass =>
  passes.toSorted((a, b) => (a.cpuMsPerRequest ?? 0) - (b.cpuMsPerRequest ?? 0))[Math.floor((passes.length - 1) / 2)]!

/** Each round's CPU per request, in the order measured. */
const cpuOf = (passes: ReadonlyArray<Pass>) => passes.map((pass) => pass.cpuMsPerRequest?.toFixed(3)).join("/")

/**
 * One operation's line, Fidelis against the baseline with each side's median round, and its record
 * for the results file.
 */
export const compare = (
  database: string,
  operation: string,
  limiter: string,
  fs: ReadonlyArray<Pass>,
  bs: ReadonlyArray<Pass>
) => {
  const [f, b] = [median(fs), median(bs)]
  const ratio = b.rps > 0 ? f.rps / b.rps : 0
  const cpuRatio = f.cpuMsPerRequest && b.cpuMsPerRequest ? b.cpuMsPerRequest / f.cpuMsPerRequest : undefined
  process.stdout.write(
    `${operation.padEnd(25)} ${report("fidelis", f)} | ${report("baseline", b)} | ` +
      `ratio ${(ratio * 100).toFixed(0)}%` +
      (cpuRatio === undefined ? "" : ` (by CPU per request ${(cpuRatio * 100).toFixed(0)}%)`) +
      (options.rounds > 1 ? ` rounds' CPU ms/req: fidelis ${cpuOf(fs)}, baseline ${cpuOf(bs)}` : "") +
      (f.steady ? "" : ` MEMORY GREW across passes (${f.warmup?.after} -> ${f.memory?.after} MB)`) +
      "\n"
  )
  const byRound = {
    fidelis: fs.map((pass) => pass.cpuMsPerRequest),
    baseline: bs.map((pass) => pass.cpuMsPerRequest)
  }
  return { database, operation, limiter, fidelis: f, baseline: b, ratio, cpuRatio, cpuByRound: byRound }
}

/** Writes the run's results to bench/results/<run>.json. */
export const writeResults = (results: ReadonlyArray<ReturnType<typeof compare>>) => {
  mkdirSync(`${ROOT}bench/results`, { recursive: true })
  const file = `${ROOT}bench/results/${RUN}.json`
  const { duration, connections, rounds, limiters } = options
  writeFileSync(
    file,
    JSON.stringify({ node: process.version, duration, connections, rounds, limiters, results }, null, 2)
  )
  process.stdout.write(`\nwritten ${file}\n`)
}
