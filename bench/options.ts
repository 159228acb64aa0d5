import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

/** The repository's root: where the bench's processes run and its files go. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url))

/** This run's name: its results file and its profiles' folder. */
export const RUN = new Date().toISOString().replace(/[:.]/g, "-")

/** The environment that selects a rate limiter: the database's (Postgres, or memory on PGlite), or Redis. */
export const LIMITERS: Record<string, Record<string, string>> = {
  database: {},
  redis: { REDIS_URL: process.env["BENCH_REDIS_URL"] ?? "redis://127.0.0.1:6379" }
}

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

const limiters = args.limiter.split(",")
for (const name of limiters) if (!(name in LIMITERS)) throw new Error(`--limiter: unknown ${name}`)

/** The command line's options (bench/run.ts lists them). */
export const options = {
  db: args.db,
  duration: Number(args.duration),
  connections: Number(args.connections),
  only: args.only?.split(","),
  pgbouncer: args.pgbouncer,
  limiters,
  profile: args.profile,
  /**
   * On PGlite one build's ratio spans 30 points between runs minutes apart, because each side carries
   * the embedded database's own work, which swings from one process to the next (docs/performance.md,
   * 2026-11-26): fresh processes, alternated, and their medians make one run conclusive.
   */
  rounds: Math.max(1, Math.floor(Number(args.rounds)) || 1)
}
