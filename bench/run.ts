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
import { randomBytes } from "node:crypto"
import { pglite, postgres, throughPgbouncer, type Database } from "./databases.js"
import { measureAll, type Pass } from "./measure.js"
import { options } from "./options.js"
import { runScript, start, stop } from "./processes.js"
import { compare, writeResults } from "./report.js"
import { scenarios, type Scenario } from "./scenarios.js"
import { activeQuest, buildServer, createKey, settled, signIn, startFidelis } from "./server.js"

const { rounds, limiters } = options

/** The scenarios `--only` names, or all. */
const pick = (list: Scenario[]) => list.filter(({ name }) => options.only === undefined || options.only.includes(name))

/** Adds one round's passes to each scenario's list. */
const keep = (into: Map<string, Pass[]>, passes: Map<string, Pass>) => {
  for (const [name, pass] of passes) into.set(name, [...(into.get(name) ?? []), pass])
}

/** Seeds `db`, then measures Fidelis (once per limiter) and the baseline, `rounds` times, alternately. */
const benchDatabase = async (db: Database) => {
  process.stdout.write(`\n== ${db.name}${rounds > 1 ? ` (each side: its median of ${rounds} rounds)` : ""}\n`)
  const seeded = JSON.parse(await runScript("bench/seed.ts", ["--json"], db.env)) as {
    empresaId: string
    slug: string
    clientIds: string[]
    rewardId: string
  }

  const adminKey = `bench-admin-${randomBytes(16).toString("hex")}`
  let list: Scenario[] = []
  let userId = ""
  const ours = new Map<string, Map<string, Pass[]>>(limiters.map((limiter) => [limiter, new Map()]))
  const base = new Map<string, Pass[]>()
  for (let round = 1; round <= rounds; round++) {
    const processName = (name: string) => `${db.name}-${name}${rounds > 1 ? `-round${round}` : ""}`
    for (const limiter of limiters) {
      const fidelis = await startFidelis(db, limiter, adminKey, processName(`fidelis-${limiter}`))
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
      return compare(db.name, operation, limiter, ours.get(limiter)!.get(name)!, base.get(name)!)
    })
  )
}

buildServer()

const selected = options.db === "both" ? ["pglite", "postgres"] : [options.db]
const results = []
for (const name of selected) {
  const db = name === "pglite" ? pglite() : await postgres()
  if (db === undefined) continue
  const pooler = options.pgbouncer && db.name === "postgres" ? await throughPgbouncer(db) : undefined
  try {
    results.push(...(await benchDatabase(pooler?.db ?? db)))
  } finally {
    await pooler?.stop()
  }
}
writeResults(results)
