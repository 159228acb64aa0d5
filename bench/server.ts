import { execFileSync } from "node:child_process"
import type { Database } from "./databases.js"
import { LIMITERS, ROOT } from "./options.js"
import { start } from "./processes.js"
import { BENCH_USER } from "./seed.js"

/** Fidelis runs as `npm start` runs it: the compiled server, built from the sources being measured. */
export const buildServer = () => execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" })

/** Starts the compiled server on `db` with one rate limiter, an admin key of the run's, and no demo. */
export const startFidelis = (db: Database, limiter: string, adminKey: string, processName: string) =>
  start(
    "apps/server/dist/main.js",
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
    processName
  )

/** A fresh company key for this run, through the platform API (shown once). */
export const createKey = async (fidelisUrl: string, adminKey: string, empresaId: string) => {
  const res = await fetch(`${fidelisUrl}/api/v1/internal/empresas/${empresaId}/api-keys`, {
    method: "POST",
    headers: { "x-api-key": adminKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", scope: "empresa" })
  })
  return ((await res.json()) as { key: string }).key
}

/** Signs the seeded end user in; the access token outlives any run (one hour). */
export const signIn = async (fidelisUrl: string) => {
  const res = await fetch(`${fidelisUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(BENCH_USER)
  })
  const body = (await res.json()) as { access_token: string; user: { id: string } }
  if (res.status !== 200) throw new Error(`bench login: ${res.status} ${JSON.stringify(body)}`)
  return { token: body.access_token, userId: body.user.id }
}

export const activeQuest = async (fidelisUrl: string, slug: string) =>
  ((await (await fetch(`${fidelisUrl}/api/v1/public/quests/${slug}/active`)).json()) as { quest_id: string }).quest_id

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
export const settled = (fidelisUrl: string, key: string) => async () => {
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
