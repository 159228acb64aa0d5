import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, expect } from "vitest"
import { isValidCnpj } from "../../packages/core/src/documents.js"
import { checkDigit } from "../../packages/core/src/nfce/access-key.js"
import { cscHash } from "../../packages/core/src/nfce/proof.js"
import type { Member } from "./accounts.js"
import { call, createTenant, type Tenant } from "./http.js"
import type { TestServer } from "./server.js"

/** A valid CNPJ (check digits right): the test store's. */
export const STORE_CNPJ = "11222333000181"

/** A valid CNPJ no other test uses: a random base, with the check digits the validator accepts. */
export const newCnpj = () => {
  const base = String(Math.floor(Math.random() * 1e12)).padStart(12, "0")
  for (let digits = 0; digits < 100; digits++) {
    const cnpj = `${base}${String(digits).padStart(2, "0")}`
    if (isValidCnpj(cnpj)) return cnpj
  }
  throw new Error(`no check digits for ${base}`)
}

/**
 * The file of state-page outcomes by access key the server reads at each consultation
 * (FIDELIS_NFCE_GATEWAY=fixture:<file>), removed after the file's tests.
 */
export const nfceFixtures = () => {
  const dir = mkdtempSync(join(tmpdir(), "fidelis-nfce-"))
  const file = join(dir, "invoices.json")
  writeFileSync(file, "{}")
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return {
    env: { FIDELIS_NFCE_GATEWAY: `fixture:${file}` },
    /** Replaces every outcome. */
    set: (outcomes: Record<string, unknown>) => writeFileSync(file, JSON.stringify(outcomes)),
    /** Adds outcomes to those already there. */
    add: (outcomes: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), ...outcomes }))
  }
}

/** Brazil's clock (UTC-3): the key's month and an offline QR's day must not be in the future there. */
export const brasilia = (daysAgo = 0) => new Date(Date.now() - 3 * 3_600_000 - daysAgo * 86_400_000)
export const aammOf = (date: Date) =>
  `${String(date.getUTCFullYear()).slice(2)}${String(date.getUTCMonth() + 1).padStart(2, "0")}`
const dayOf = (date: Date) => String(date.getUTCDate()).padStart(2, "0")

let invoiceNumber = Math.floor(Math.random() * 1e8)

/**
 * A real SP access key (model 65) with its mod-11 check digit; `tpEmis` 9 is the offline contingency.
 * Invoice `number`s (up to 9 digits) are the next of a random sequence unless given.
 */
export const keyOf = (
  options: { cnpj?: string; tpEmis?: "1" | "9"; aamm?: string; model?: string; number?: number } = {}
) => {
  const number = options.number ?? ++invoiceNumber
  const nnf = String(number).padStart(9, "0")
  const first43 =
    `35${options.aamm ?? aammOf(brasilia())}${options.cnpj ?? STORE_CNPJ}${options.model ?? "65"}001` +
    `${nnf}${options.tpEmis ?? "1"}${String(number).padStart(8, "0").slice(-8)}`
  return `${first43}${checkDigit(first43)}`
}

export const sp = (payload: string, host = "www.nfce.fazenda.sp.gov.br") => `https://${host}/qrcode?p=${payload}`

/** v3 offline: the total travels in the URL with a signature nobody checked before (`c2ln`). */
export const offlineQr = (total: string, key = keyOf({ tpEmis: "9" }), issued = brasilia()) =>
  sp(`${key}|3|1|${dayOf(issued)}|${total}|||c2ln`)

export const onlineQr = (key = keyOf()) => sp(`${key}|3|1`)

/** A v2 offline QR whose hash is made with `csc` under id `cscId`, as the store's software does. */
export const v2OfflineQr = (options: { total: string; csc: string; cscId?: number; key?: string }) => {
  const key = options.key ?? keyOf({ tpEmis: "9" })
  const signed = `${key}|2|1|${dayOf(brasilia())}|${options.total}|${"6d".repeat(28)}|${options.cscId ?? 1}`
  return sp(`${signed}|${cscHash(signed, options.csc)}`)
}

/** A v3 offline QR signed by `sign` (RSA-SHA1 over its first 7 fields, base64), as NT 2025.001 says. */
export const v3OfflineQr = (options: { total: string; sign: (text: string) => string; key?: string }) => {
  const key = options.key ?? keyOf({ tpEmis: "9" })
  const signed = `${key}|3|1|${dayOf(brasilia())}|${options.total}|2|12345678909`
  // A base64 signature holds + and /, which the URL carries raw (nfce.md: decode p with decodeURIComponent).
  return sp(`${signed}|${options.sign(signed)}`)
}

export const scan = (server: TestServer, user: Member, qr_code: string) =>
  call(server, "/api/v1/nfce/decode-qr", { body: { qr_code }, headers: user.auth })

export const progressOf = (server: TestServer, user: Member, taskId: string) =>
  call(server, `/api/v1/nfce/progress/${taskId}`, { headers: user.auth })

/** The task once it is in none of the `passing` states (by default: once it is no longer processing). */
export const settled = async (
  server: TestServer,
  user: Member,
  taskId: string,
  options: { passing?: ReadonlyArray<string>; ms?: number } = {}
) => {
  const passing = options.passing ?? ["processing"]
  const deadline = Date.now() + (options.ms ?? 30_000)
  for (;;) {
    const res = await progressOf(server, user, taskId)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    if (!passing.includes(res.body.status)) return res.body
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${res.body.status}: ${JSON.stringify(res.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Sets the empresa's profile CNPJ (STORE_CNPJ unless `cnpj`), so its receipts select it, with `settings`. */
export const registerCnpj = async (
  server: TestServer,
  tenant: Tenant,
  settings: Record<string, unknown> = {},
  cnpj = STORE_CNPJ
) => {
  const res = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
    method: "PATCH",
    key: server.adminKey,
    body: { cnpj, settings: { points_per_real: 1.5, ...settings } }
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

/** An admin proves `tenant`'s claim to a CNPJ it registered, so that its receipts credit there. */
export const proveCnpj = async (server: TestServer, tenant: Tenant, cnpj: string) => {
  const res = await call(server, `/api/v1/internal/nfce/cnpj-claims/${cnpj}/proof`, {
    method: "PUT",
    key: server.adminKey,
    body: { empresa_id: tenant.empresa.id }
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

/** A store of its own with its own CNPJ (points_per_real 1.5 unless `settings` say otherwise). */
export const nfceShop = async (server: TestServer, settings: Record<string, unknown> = {}) => {
  const store = await createTenant(server)
  const cnpj = newCnpj()
  await registerCnpj(server, store, settings, cnpj)
  return { store, cnpj, offlineKey: () => keyOf({ tpEmis: "9", cnpj }), onlineKey: () => keyOf({ cnpj }) }
}

export const wallet = async (server: TestServer, user: Member, tenant: Tenant) => {
  const res = await call(server, `/api/v1/establishments/stores/${tenant.empresa.id}/wallet`, { headers: user.auth })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

/** The user's timeline events about receipts. */
export const receiptEvents = async (server: TestServer, user: Member) => {
  const res = await call(server, "/api/v1/timeline?limit=100", { headers: user.auth })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return (res.body.items ?? res.body).filter((item: any) => item.metadata?.nfce_id !== undefined)
}
