/**
 * `npm run bench`: measures each operation against its bare baseline in the same run, on the
 * embedded PGlite and (when reachable) on PostgreSQL, and prints throughput, p50/p99 and the
 * ratio. Results are also written to bench/results/<timestamp>.json.
 *
 *   npm run bench -- --db=pglite|postgres|both --duration=10 --connections=10 [--only=get_client,credit_points]
 *
 * PostgreSQL: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/fidelis_bench (created
 * and seeded on first use). PGlite: a persistent data directory under bench/.data (seeded once).
 */
import autocannon from "autocannon"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import pg from "pg"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    only: { type: "string" }
  }
})
const duration = Number(args.duration)
const connections = Number(args.connections)

interface Proc {
  readonly port: number
  readonly child: ChildProcess
}

/** Spawns a TypeScript entry point and waits for its `listening <port>` line (or Fidelis's JSON log). */
const start = (entry: string, argv: string[], env: Record<string, string>): Promise<Proc> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), 300_000)
    // Once the port is known the server's access log is drained unread: keeping and rescanning it
    // would cost the load generator, which shares the machine's two cores, CPU per request.
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const port =
        /listening (\d+)/.exec(output)?.[1] ?? /"message":"listening","url":"http:\/\/[^:]+:(\d+)"/.exec(output)?.[1]
      if (port) {
        clearTimeout(timer)
        child.stdout!.off("data", onData)
        child.stdout!.resume()
        resolve({ port: Number(port), child })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code}:\n${output}`))
    })
  })

const stop = (proc: Proc) =>
  new Promise<void>((resolve) => {
    if (proc.child.exitCode !== null) return resolve()
    proc.child.once("exit", () => resolve())
    proc.child.kill("SIGTERM")
  })

/** Runs a command to completion, its progress on our stderr; resolves with its stdout. */
const run = (entry: string, argv: string[], env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${entry} exited with ${code}`))))
  })

/**
 * Where a run's data lives, as environment for each process: PGlite is a persistent embedded data
 * directory that the server and the baseline open in turn (it has one owner at a time, as in
 * production); PostgreSQL is a database both reach over the network.
 */
interface Database {
  readonly name: "pglite" | "postgres"
  readonly env: Record<string, string>
}

const pglite = (): Database => {
  const dir = `${ROOT}bench/.data/pglite`
  mkdirSync(dir, { recursive: true })
  return { name: "pglite", env: { FIDELIS_DATA_DIR: dir } }
}

const postgres = async (): Promise<Database | undefined> => {
  const url = new URL(process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/fidelis_bench")
  const name = url.pathname.slice(1)
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: "/postgres" }).toString() })
  try {
    await admin.connect()
  } catch {
    process.stdout.write(`PostgreSQL at ${url.host} is not reachable: skipped\n`)
    return undefined
  }
  const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
  if (!rowCount) await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return { name: "postgres", env: { DATABASE_URL: url.toString() } }
}

/** A fresh company key for this run, through the platform API (shown once). */
const createKey = async (fidelisUrl: string, adminKey: string, empresaId: string) => {
  const res = await fetch(`${fidelisUrl}/api/v1/internal/empresas/${empresaId}/api-keys`, {
    method: "POST",
    headers: { "x-api-key": adminKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", scope: "empresa" })
  })
  return ((await res.json()) as { key: string }).key
}

interface Scenario {
  readonly name: string
  /**
   * Concurrent connections; the analytics run one at a time, as a dashboard asks them, so their
   * p99 is the query's own latency rather than queueing behind nine others on two cores.
   */
  readonly connections?: number
  readonly fidelis: (i: number) => {
    method: "GET" | "POST"
    path: string
    body?: string
    headers?: Record<string, string>
  }
  readonly baseline: (i: number) => {
    method: "GET" | "POST"
    path: string
    body?: string
    headers?: Record<string, string>
  }
}

const SEARCHES = ["souza%2012345", "bench%2B4242%40", "ana%20lima%209", "119000777", "diego%20alves%2015"]
const search = (i: number) => SEARCHES[i % SEARCHES.length]!

/** The same analytic over a year: the longest window the API accepts, served by the rollups. */
const yearLong = (scenario: Scenario): Scenario => {
  const year = (make: Scenario["fidelis"]) => (i: number) => {
    const request = make(i)
    return { ...request, path: request.path.replace("days=30", "days=365") }
  }
  return {
    ...scenario,
    name: `${scenario.name}?days=365`,
    fidelis: year(scenario.fidelis),
    baseline: year(scenario.baseline)
  }
}

const scenarios = (clientIds: ReadonlyArray<string>): Scenario[] => {
  const pick = (i: number) => clientIds[i % clientIds.length]!
  const credit = (i: number) => ({
    method: "POST" as const,
    body: JSON.stringify({ client_id: pick(i), points: 5 }),
    headers: { "content-type": "application/json", "x-idempotency-key": `bench-${process.pid}-${Date.now()}-${i}` }
  })
  const list: Scenario[] = [
    {
      name: "get_client",
      fidelis: (i) => ({ method: "GET", path: `/api/v1/public/clients/${pick(i)}` }),
      baseline: (i) => ({ method: "GET", path: `/clients/${pick(i)}` })
    },
    {
      name: "credit_points",
      fidelis: (i) => ({ ...credit(i), path: "/api/v1/public/points/credit" }),
      baseline: (i) => ({ ...credit(i), path: "/points/credit" })
    },
    {
      // What support staff type: a name with its number, an email, a phone fragment.
      name: "list_clients?search",
      fidelis: (i) => ({ method: "GET", path: `/api/v1/public/clients?search=${search(i)}` }),
      baseline: (i) => ({ method: "GET", path: `/clients?search=${search(i)}` })
    },
    {
      name: "get_loyalty_card_metrics",
      connections: 1,
      fidelis: () => ({ method: "GET", path: "/api/v1/public/loyalty-cards/metrics?days=30" }),
      baseline: () => ({ method: "GET", path: "/loyalty-cards/metrics?days=30" })
    },
    ...(
      [
        ["get_metrics_overview", "/metrics/overview?days=30"],
        ["get_client_behavior", (i: number) => `/clients/${pick(i)}/behavior?days=30`],
        ["get_referral_performance", "/referral-performance?days=30"],
        ["get_referral_metrics", "/referrals/metrics?days=30"],
        ["get_quest_metrics", "/quests/metrics?days=30"],
        ["get_nfce_metrics", "/nfce/metrics?days=30"]
      ] as const
    ).map(([name, path]): Scenario => {
      const at = (i: number) => (typeof path === "string" ? path : path(i))
      return {
        name,
        connections: 1,
        fidelis: (i) => ({ method: "GET", path: `/api/v1/public${at(i)}` }),
        baseline: (i) => ({ method: "GET", path: at(i) })
      }
    })
  ]
  // Every analytic (they are the one-connection scenarios) again over the year.
  return [...list, ...list.filter((scenario) => scenario.connections === 1).map(yearLong)]
}

interface Measure {
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
}

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

const measure = async (
  { port, child }: Proc,
  make: Scenario["fidelis"],
  headers: Record<string, string>,
  concurrency: number
): Promise<Measure> => {
  let i = 0
  const cpuBefore = cpuSeconds(child.pid)
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: concurrency,
    duration,
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
  return {
    cpuMsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
        ? undefined
        : Math.round(((cpuAfter - cpuBefore) * 1000 * 1000) / result.requests.total) / 1000,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx
  }
}

const report = (name: string, m: Measure) =>
  `${name} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(4)} ms  ` +
  `p99 ${String(m.p99).padStart(4)} ms` +
  (m.cpuMsPerRequest === undefined ? "" : `  cpu ${m.cpuMsPerRequest.toFixed(3)} ms/req`) +
  (m.non2xx + m.errors > 0 ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : "")

/** Measures each scenario on one side, after a warm-up pass of the same length. */
const measureAll = async (
  server: Proc,
  list: Scenario[],
  side: "fidelis" | "baseline",
  headers: Record<string, string>
) => {
  const out = new Map<string, Measure>()
  for (const scenario of list) {
    const concurrency = scenario.connections ?? connections
    await measure(server, scenario[side], headers, concurrency)
    out.set(scenario.name, await measure(server, scenario[side], headers, concurrency))
  }
  return out
}

const benchDatabase = async (db: Database) => {
  process.stdout.write(`\n== ${db.name}\n`)
  const seeded = JSON.parse(await run("bench/seed.ts", ["--json"], db.env)) as {
    empresaId: string
    clientIds: string[]
  }
  const only = args.only?.split(",")
  const list = scenarios(seeded.clientIds).filter(({ name }) => only === undefined || only.includes(name))

  const adminKey = `bench-admin-${process.pid}-0123456789`
  const fidelis = await start("apps/server/src/main.ts", [], {
    ...db.env,
    PORT: "0",
    FIDELIS_DEMO: "0",
    FIDELIS_ADMIN_KEY: adminKey,
    FIDELIS_RATE_LIMIT_PER_MINUTE: "100000000"
  })
  let ours: Map<string, Measure>
  try {
    const key = await createKey(`http://127.0.0.1:${fidelis.port}`, adminKey, seeded.empresaId)
    ours = await measureAll(fidelis, list, "fidelis", { "x-api-key": key })
  } finally {
    await stop(fidelis)
  }
  const baseline = await start("bench/baseline.ts", [], { ...db.env, BENCH_EMPRESA_ID: seeded.empresaId })
  let base: Map<string, Measure>
  try {
    base = await measureAll(baseline, list, "baseline", {})
  } finally {
    await stop(baseline)
  }
  return list.map(({ name }) => {
    const f = ours.get(name)!
    const b = base.get(name)!
    const ratio = b.rps > 0 ? f.rps / b.rps : 0
    const cpuRatio = f.cpuMsPerRequest && b.cpuMsPerRequest ? b.cpuMsPerRequest / f.cpuMsPerRequest : undefined
    process.stdout.write(
      `${name.padEnd(25)} ${report("fidelis", f)} | ${report("baseline", b)} | ratio ${(ratio * 100).toFixed(0)}%` +
        (cpuRatio === undefined ? "" : ` (by CPU per request ${(cpuRatio * 100).toFixed(0)}%)`) +
        "\n"
    )
    return { database: db.name, operation: name, fidelis: f, baseline: b, ratio, cpuRatio }
  })
}

const selected = args.db === "both" ? ["pglite", "postgres"] : [args.db]
const results = []
for (const name of selected) {
  const db = name === "pglite" ? pglite() : await postgres()
  if (db !== undefined) results.push(...(await benchDatabase(db)))
}
mkdirSync(`${ROOT}bench/results`, { recursive: true })
const file = `${ROOT}bench/results/${new Date().toISOString().replace(/[:.]/g, "-")}.json`
writeFileSync(file, JSON.stringify({ node: process.version, duration, connections, results }, null, 2))
process.stdout.write(`\nwritten ${file}\n`)
