import autocannon from "autocannon"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { options } from "./options.js"
import type { Proc } from "./processes.js"
import type { Scenario } from "./scenarios.js"

export interface Measure {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
  /**
   * The server process's CPU time (user + system) per request. Throughput on two shared cores moves
   * with whatever else runs; a single-threaded server's CPU per request does not, so its ratio is
   * the steadier comparison.
   */
  readonly cpuMsPerRequest: number | undefined
  /**
   * The server's write system calls per request (socket writes to the client, the database, Redis,
   * and the log): each cost 0.03-0.15 ms of CPU in the bench's profiles, and `writev` is the largest
   * single item in every one of them.
   */
  readonly writesPerRequest: number | undefined
  /** The server's resident memory around the pass, MB (Linux /proc; undefined elsewhere). */
  readonly memory: Memory | undefined
}

interface Memory {
  /** Before the load, at its highest under it (sampled every 100 ms), and after a few seconds idle. */
  readonly before: number
  readonly peak: number
  readonly after: number
}

/** A process's resident set size in MB, from /proc/<pid>/status (VmRSS). */
const residentMb = (pid: number | undefined): number | undefined => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? undefined : Math.round(Number(kb) / 102.4) / 10
  } catch {
    return undefined
  }
}

/** A measured pass, with the memory its warm-up left and whether the second pass left the same. */
export interface Pass extends Measure {
  readonly warmup: Memory | undefined
  readonly steady: boolean
}

/** How long the server idles after a pass before its memory is read again. */
const SETTLE_MS = 3_000

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  try {
    // Fields after "pid (comm) ": state is index 0, utime 11, stime 12.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/** Write system calls a process has made so far (`syscw` in /proc/<pid>/io; undefined elsewhere). */
const writeCalls = (pid: number | undefined): number | undefined => {
  try {
    const calls = /syscw:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1]
    return calls === undefined ? undefined : Number(calls)
  } catch {
    return undefined
  }
}

const measure = async (
  { port, child }: Proc,
  make: Scenario["fidelis"],
  headers: Record<string, string>,
  concurrency: number
): Promise<Measure> => {
  let i = 0
  const rssBefore = residentMb(child.pid)
  let rssPeak = rssBefore ?? 0
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentMb(child.pid) ?? 0)), 100)
  const cpuBefore = cpuSeconds(child.pid)
  const writesBefore = writeCalls(child.pid)
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: concurrency,
    duration: options.duration,
    requests: [
      {
        setupRequest: (req) => {
          const r = make(i++)
          return { ...req, method: r.method, path: r.path, body: r.body, headers: { ...headers, ...r.headers } }
        }
      }
    ]
  })
  const cpuAfter = cpuSeconds(child.pid)
  const writesAfter = writeCalls(child.pid)
  clearInterval(sampler)
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const rssAfter = residentMb(child.pid)
  return {
    memory:
      rssBefore === undefined || rssAfter === undefined
        ? undefined
        : { before: rssBefore, peak: Math.max(rssPeak, rssAfter), after: rssAfter },
    cpuMsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
        ? undefined
        : Math.round(((cpuAfter - cpuBefore) * 1000 * 1000) / result.requests.total) / 1000,
    writesPerRequest:
      writesBefore === undefined || writesAfter === undefined || result.requests.total === 0
        ? undefined
        : Math.round(((writesAfter - writesBefore) * 100) / result.requests.total) / 100,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx
  }
}

/**
 * Whether a server's memory came back to its steady size: the second pass of the same operation
 * (the measured one, after the warm-up) may not leave it more than 10% or 20 MB (whichever is
 * larger) above where the first left it. Growth across repeated passes is what a leak looks like.
 */
const steady = (first: Memory, second: Memory) => second.after - first.after <= Math.max(20, first.after * 0.1)

/** Measures each scenario on one side, after a warm-up pass of the same length. */
export const measureAll = async (
  server: Proc,
  list: Scenario[],
  side: "fidelis" | "baseline",
  headers: Record<string, string>,
  settle: () => Promise<void> = async () => undefined
) => {
  const out = new Map<string, Pass>()
  for (const scenario of list) {
    await settle()
    const concurrency = scenario.connections ?? options.connections
    const warmup = await measure(server, scenario[side], headers, concurrency)
    const measured = await measure(server, scenario[side], headers, concurrency)
    const isSteady =
      warmup.memory === undefined || measured.memory === undefined || steady(warmup.memory, measured.memory)
    out.set(scenario.name, { ...measured, warmup: warmup.memory, steady: isSteady })
  }
  return out
}
