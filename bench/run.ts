/**
 * `npm run bench`: measures each operation against its bare baseline in the same run, on the
 * embedded PGlite and (when reachable) on PostgreSQL, and prints throughput, p50/p99 and the
 * ratio. Results are also written to bench/results/<timestamp>.json.
 *
 *   npm run bench -- --db=pglite|postgres|both --duration=10 --connections=10 [--only=get_client,credit_points]
 *     [--pgbouncer]   PostgreSQL through a private PgBouncer in transaction mode (both sides), as in production
 *     [--limiter=database,redis]   Fidelis once per rate limiter (see below)
 *     [--profile]   every server process writes a CPU profile (bench/profiles/<run>/<process>/), for
 *                   bench/profile-summary.ts
 *     [--rounds=3]   Fidelis and the baseline, each in a fresh process, alternately that many times; each
 *                    operation reports the round with its side's median CPU per request
 *
 * PostgreSQL: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/fidelis_bench (created
 * and seeded on first use). PGlite: a persistent data directory under bench/.data (seeded once).
 * `--limiter` measures Fidelis once per rate limiter (the database's, or Redis at BENCH_REDIS_URL,
 * default redis://127.0.0.1:6379), each operation named with its limiter.
 */
import autocannon from "autocannon"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import pg from "pg"
import { pgbouncerBinary, startPgbouncer } from "../test/support/pgbouncer.js"
import { offlineReceipts } from "./receipts.js"
import { BENCH_USER } from "./seed.js"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SERVER = "apps/server/dist/main.js"

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    only: { type: "string" },
    pgbouncer: { type: "boolean", default: false },
    limiter: { type: "string", default: "database" },
    profile: { type: "boolean", default: false },
    rounds: { type: "string", default: "1" }
  }
})
const duration = Number(args.duration)
const connections = Number(args.connections)
/**
 * On PGlite one build's ratio spans 30 points between runs minutes apart, because each side carries
 * the embedded database's own work, which swings from one process to the next (docs/performance.md,
 * 2026-11-26): fresh processes, alternated, and their medians make one run conclusive.
 */
const rounds = Math.max(1, Math.floor(Number(args.rounds)) || 1)

const RUN = new Date().toISOString().replace(/[:.]/g, "-")

/**
 * `--profile`: node's own sampling profiler over the process's whole life (start-up, warm-up and the
 * measured pass; bench/profile-summary.ts can skip the start), written when it exits, into a folder
 * per process: a process run through tsx writes one profile per thread (its loader has its own).
 */
const profiled = (name: string) =>
  args.profile ? ["--cpu-prof", `--cpu-prof-dir=${ROOT}bench/profiles/${RUN}/${name}`] : []

interface Proc {
  readonly port: number
  readonly child: ChildProcess
}

/**
 * Spawns an entry point (compiled JavaScript as is, TypeScript through tsx) and waits for its
 * `listening <port>` line (or Fidelis's JSON log).
 */
const start = (entry: string, env: Record<string, string>, profile: string): Promise<Proc> =>
  new Promise((resolve, reject) => {
    const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : []
    const child = spawn(process.execPath, [...loader, ...profiled(profile), entry], {
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
  readonly name: "pglite" | "postgres" | "postgres+pgbouncer"
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

/** Pool size of `--pgbouncer`: the server's own pool size, so the pooler is never the bottleneck. */
const PGBOUNCER_POOL = 10

/**
 * `--pgbouncer`: the database through a PgBouncer of the run's own (transaction pooling), DATABASE_URL
 * the pooler and DATABASE_DIRECT_URL the server itself, as the README's deployment section says.
 */
const throughPgbouncer = async (db: Database) => {
  const binary = await pgbouncerBinary()
  if (binary === undefined) throw new Error("--pgbouncer: pgbouncer is not installed (apt-get install pgbouncer)")
  const direct = db.env["DATABASE_URL"]!
  const pooler = await startPgbouncer(binary, direct, PGBOUNCER_POOL)
  const pooled: Database = {
    name: "postgres+pgbouncer",
    env: { DATABASE_URL: pooler.urlFor(direct), DATABASE_DIRECT_URL: direct }
  }
  return { db: pooled, stop: pooler.stop }
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

/** A promoter's survey response; each its own key, since a repeated one is a 409 by design. */
const survey = (i: number) => ({
  method: "POST" as const,
  body: JSON.stringify({ response: { csat: 5, nps: 10 } }),
  headers: { "content-type": "application/json", "x-idempotency-key": `bench-${process.pid}-${Date.now()}-${i}` }
})

/** What the scenarios address: the seeded tenant's clients, and the end user's token and reward. */
interface Targets {
  readonly clientIds: ReadonlyArray<string>
  readonly slug: string
  readonly rewardId: string
  readonly questId: string
  readonly token: string
}

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

const scenarios = ({ clientIds, slug, rewardId, questId, token }: Targets): Scenario[] => {
  const pick = (i: number) => clientIds[i % clientIds.length]!
  const asUser = { authorization: `Bearer ${token}`, "content-type": "application/json" }
  const receipt = offlineReceipts()
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
      name: "get_user_me",
      fidelis: () => ({ method: "GET", path: "/api/v1/users/me", headers: asUser }),
      baseline: () => ({ method: "GET", path: "/users/me" })
    },
    {
      name: "redeem_reward",
      fidelis: () => ({ method: "POST", path: `/api/v1/rewards/${rewardId}/redeem`, body: "{}", headers: asUser }),
      baseline: () => ({ method: "POST", path: `/rewards/${rewardId}/redeem` })
    },
    {
      name: "get_active_survey",
      fidelis: () => ({ method: "GET", path: `/api/v1/public/quests/${slug}/active` }),
      baseline: () => ({ method: "GET", path: `/quests/${slug}/active` })
    },
    {
      name: "submit_survey",
      fidelis: (i) => ({ ...survey(i), path: `/api/v1/public/quests/${slug}/${questId}/responses` }),
      baseline: (i) => ({ ...survey(i), path: `/quests/${slug}/${questId}/responses` })
    },
    {
      // A distinct offline receipt per request (offline QR codes carry their total: no state page).
      name: "nfce_decode_qr",
      fidelis: () => ({
        method: "POST",
        path: "/api/v1/nfce/decode-qr",
        body: JSON.stringify({ qr_code: receipt() }),
        headers: asUser
      }),
      baseline: () => ({
        method: "POST",
        path: "/nfce/decode-qr",
        body: JSON.stringify({ qr_code: receipt() }),
        headers: { "content-type": "application/json" }
      })
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
interface Pass extends Measure {
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

const report = (name: string, m: Measure) =>
  `${name} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(4)} ms  ` +
  `p99 ${String(m.p99).padStart(4)} ms` +
  (m.cpuMsPerRequest === undefined ? "" : `  cpu ${m.cpuMsPerRequest.toFixed(3)} ms/req`) +
  (m.writesPerRequest === undefined ? "" : `  writes ${m.writesPerRequest.toFixed(2)}/req`) +
  (m.non2xx + m.errors > 0 ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : "") +
  (m.memory === undefined ? "" : `  rss ${m.memory.before}/${m.memory.peak}/${m.memory.after} MB`)

/**
 * Whether a server's memory came back to its steady size: the second pass of the same operation
 * (the measured one, after the warm-up) may not leave it more than 10% or 20 MB (whichever is
 * larger) above where the first left it. Growth across repeated passes is what a leak looks like.
 */
const steady = (first: Memory, second: Memory) => second.after - first.after <= Math.max(20, first.after * 0.1)

/** Measures each scenario on one side, after a warm-up pass of the same length. */
const measureAll = async (
  server: Proc,
  list: Scenario[],
  side: "fidelis" | "baseline",
  headers: Record<string, string>,
  settle: () => Promise<void> = async () => undefined
) => {
  const out = new Map<string, Pass>()
  for (const scenario of list) {
    await settle()
    const concurrency = scenario.connections ?? connections
    const warmup = await measure(server, scenario[side], headers, concurrency)
    const measured = await measure(server, scenario[side], headers, concurrency)
    const isSteady =
      warmup.memory === undefined || measured.memory === undefined || steady(warmup.memory, measured.memory)
    out.set(scenario.name, { ...measured, warmup: warmup.memory, steady: isSteady })
  }
  return out
}

/** How long the server may take to work off the crediting its NFC-e scans queued. */
const SETTLE_TIMEOUT_MS = 180_000

/**
 * Waits until the server has no NFC-e scan still being credited: its job workers credit each scan
 * in the background, on the bench user's client row, so a backlog (left by `nfce_decode_qr`, or by
 * an earlier run's server stopped before it finished) would compete with the next operation, and
 * with its row locks (it held `redeem_reward`'s transactions up to 2 s). The baseline has no
 * workers: it withdraws the scans it queued when it stops. Asked through the company API, which
 * works on either database.
 */
const settled = (fidelisUrl: string, key: string) => async () => {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS
  for (;;) {
    const res = await fetch(`${fidelisUrl}/api/v1/public/nfce/invoices?status=processing&per_page=1`, {
      headers: { "x-api-key": key }
    })
    const { total } = (await res.json()) as { total: number }
    if (total === 0) return
    if (Date.now() > deadline) {
      process.stdout.write(`(still crediting ${total} NFC-e scans after ${SETTLE_TIMEOUT_MS / 1000} s; measuring)\n`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
}

/** The environment that selects a rate limiter: the database's (Postgres, or memory on PGlite), or Redis. */
const LIMITERS: Record<string, Record<string, string>> = {
  database: {},
  redis: { REDIS_URL: process.env["BENCH_REDIS_URL"] ?? "redis://127.0.0.1:6379" }
}
const limiters = args.limiter.split(",")
for (const name of limiters) if (!(name in LIMITERS)) throw new Error(`--limiter: unknown ${name}`)

/** Signs the seeded end user in; the access token outlives any run (one hour). */
const signIn = async (fidelisUrl: string) => {
  const res = await fetch(`${fidelisUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(BENCH_USER)
  })
  const body = (await res.json()) as { access_token: string; user: { id: string } }
  if (res.status !== 200) throw new Error(`bench login: ${res.status} ${JSON.stringify(body)}`)
  return { token: body.access_token, userId: body.user.id }
}

const activeQuest = async (fidelisUrl: string, slug: string) =>
  ((await (await fetch(`${fidelisUrl}/api/v1/public/quests/${slug}/active`)).json()) as { quest_id: string }).quest_id

/** The pass with the median CPU per request (the lower of the two middle ones for an even count). */
const median = (passes: ReadonlyArray<Pass>): Pass =>
  passes.toSorted((a, b) => (a.cpuMsPerRequest ?? 0) - (b.cpuMsPerRequest ?? 0))[Math.floor((passes.length - 1) / 2)]!

/** Each round's CPU per request, in the order measured. */
const cpuOf = (passes: ReadonlyArray<Pass>) => passes.map((pass) => pass.cpuMsPerRequest?.toFixed(3)).join("/")

const benchDatabase = async (db: Database) => {
  process.stdout.write(`\n== ${db.name}${rounds > 1 ? ` (each side: its median of ${rounds} rounds)` : ""}\n`)
  const seeded = JSON.parse(await run("bench/seed.ts", ["--json"], db.env)) as {
    empresaId: string
    slug: string
    clientIds: string[]
    rewardId: string
  }
  const only = args.only?.split(",")
  const pick = (list: Scenario[]) => list.filter(({ name }) => only === undefined || only.includes(name))

  const adminKey = `bench-admin-${randomBytes(16).toString("hex")}`
  let list: Scenario[] = []
  let userId = ""
  const ours = new Map<string, Map<string, Pass[]>>(limiters.map((limiter) => [limiter, new Map()]))
  const base = new Map<string, Pass[]>()
  const keep = (into: Map<string, Pass[]>, passes: Map<string, Pass>) => {
    for (const [name, pass] of passes) into.set(name, [...(into.get(name) ?? []), pass])
  }
  for (let round = 1; round <= rounds; round++) {
    const processName = (name: string) => `${db.name}-${name}${rounds > 1 ? `-round${round}` : ""}`
    for (const limiter of limiters) {
      const fidelis = await start(
        SERVER,
        {
          ...db.env,
          ...LIMITERS[limiter],
          PORT: "0",
          FIDELIS_DEMO: "0",
          FIDELIS_ADMIN_KEY: adminKey,
          // Budgets out of the way: every request counts as in production, none is refused.
          FIDELIS_RATE_LIMIT_PER_MINUTE: "100000000",
          FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "100000000",
          FIDELIS_USER_RATE_LIMIT_PER_MINUTE: "100000000",
          FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: "100000000"
        },
        processName(`fidelis-${limiter}`)
      )
      try {
        const url = `http://127.0.0.1:${fidelis.port}`
        const key = await createKey(url, adminKey, seeded.empresaId)
        const user = await signIn(url)
        userId = user.userId
        list = pick(
          scenarios({
            clientIds: seeded.clientIds,
            slug: seeded.slug,
            rewardId: seeded.rewardId,
            questId: await activeQuest(url, seeded.slug),
            token: user.token
          })
        )
        keep(ours.get(limiter)!, await measureAll(fidelis, list, "fidelis", { "x-api-key": key }, settled(url, key)))
      } finally {
        await stop(fidelis)
      }
    }
    const baseline = await start(
      "bench/baseline.ts",
      { ...db.env, BENCH_EMPRESA_ID: seeded.empresaId, BENCH_USER_ID: userId },
      processName("baseline")
    )
    try {
      keep(base, await measureAll(baseline, list, "baseline", {}))
    } finally {
      await stop(baseline)
    }
  }
  return limiters.flatMap((limiter) =>
    list.map(({ name }) => {
      const operation = limiters.length > 1 ? `${name}[${limiter}]` : name
      const [fs, bs] = [ours.get(limiter)!.get(name)!, base.get(name)!]
      const [f, b] = [median(fs), median(bs)]
      const ratio = b.rps > 0 ? f.rps / b.rps : 0
      const cpuRatio = f.cpuMsPerRequest && b.cpuMsPerRequest ? b.cpuMsPerRequest / f.cpuMsPerRequest : undefined
      process.stdout.write(
        `${operation.padEnd(25)} ${report("fidelis", f)} | ${report("baseline", b)} | ` +
          `ratio ${(ratio * 100).toFixed(0)}%` +
          (cpuRatio === undefined ? "" : ` (by CPU per request ${(cpuRatio * 100).toFixed(0)}%)`) +
          (rounds > 1 ? ` rounds' CPU ms/req: fidelis ${cpuOf(fs)}, baseline ${cpuOf(bs)}` : "") +
          (f.steady ? "" : ` MEMORY GREW across passes (${f.warmup?.after} -> ${f.memory?.after} MB)`) +
          "\n"
      )
      const byRound = {
        fidelis: fs.map((pass) => pass.cpuMsPerRequest),
        baseline: bs.map((pass) => pass.cpuMsPerRequest)
      }
      return { database: db.name, operation, limiter, fidelis: f, baseline: b, ratio, cpuRatio, cpuByRound: byRound }
    })
  )
}

// Fidelis runs as `npm start` runs it: the compiled server, built from the sources being measured.
execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" })

const selected = args.db === "both" ? ["pglite", "postgres"] : [args.db]
const results = []
for (const name of selected) {
  const db = name === "pglite" ? pglite() : await postgres()
  if (db === undefined) continue
  const pooler = args.pgbouncer && db.name === "postgres" ? await throughPgbouncer(db) : undefined
  try {
    results.push(...(await benchDatabase(pooler?.db ?? db)))
  } finally {
    await pooler?.stop()
  }
}
mkdirSync(`${ROOT}bench/results`, { recursive: true })
const file = `${ROOT}bench/results/${RUN}.json`
writeFileSync(
  file,
  JSON.stringify({ node: process.version, duration, connections, rounds, limiters, results }, null, 2)
)
process.stdout.write(`\nwritten ${file}\n`)
