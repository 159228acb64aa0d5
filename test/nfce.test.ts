import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { createRealDatabase, realServerUrl } from "@fidelis/db/testing"
import { startSmtpSink } from "../packages/core/test/smtp-sink.js"
import { expectRefusal, memberOf, useEndUserServer } from "./support/accounts.js"
import { call, createTenant, type Tenant } from "./support/http.js"
import {
  keyOf,
  nfceFixtures,
  offlineQr,
  onlineQr,
  progressOf,
  proveCnpj,
  receiptEvents,
  registerCnpj,
  scan,
  settled,
  sp,
  wallet
} from "./support/nfce.js"
import { fidelis, json } from "../packages/cli/test/bin.js"
import { ExitCode } from "../packages/cli/src/exit-codes.js"
import { startServer } from "./support/server.js"

/** A valid CNPJ no store registered. */
const UNKNOWN_CNPJ = "11444777000161"

const fixtures = nfceFixtures()
const setFixtures = fixtures.set
/** Offline receipts are looked at again within seconds here. */
const serverEnv = {
  ...fixtures.env,
  FIDELIS_NFCE_RECHECK_BASE_SECONDS: "1",
  FIDELIS_NFCE_RECHECK_MAX_SECONDS: "2"
}
const ok = (total_cents: number, items_count: number | null = 1) => ({
  status: "ok",
  total_cents,
  items_count,
  issued_at: null
})

describe("NFC-e scans", async () => {
  const { server, tenant, member } = await useEndUserServer(serverEnv)
  beforeAll(() => registerCnpj(server, tenant))

  it("an offline QR's points stay pending until the state's page shows the invoice, then credit once", async () => {
    const user = await member(0)
    const key = keyOf({ tpEmis: "9" })
    const res = await scan(server, user, offlineQr("94.99", key))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body).toEqual({
      success: true,
      task_id: expect.any(String),
      status: "processing",
      message: expect.any(String)
    })
    // 94.99 × 1.5 = 142.485: whole points only.
    expect(await settled(server, user, res.body.task_id)).toMatchObject({
      status: "pending",
      points: null,
      pending_points: 142,
      confirm_by: expect.any(String)
    })
    expect(await wallet(server, user, tenant)).toMatchObject({ saldo_pontos: 0, pending_points: 142, total_earned: 0 })

    setFixtures({ [key]: ok(9499, 3) })
    const done = await settled(server, user, res.body.task_id, { passing: ["processing", "pending"] })
    expect(done).toMatchObject({ status: "completed", progress: 100, points: 142, pending_points: null })
    expect(await wallet(server, user, tenant)).toMatchObject({ saldo_pontos: 142, pending_points: 0 })
    const events = await receiptEvents(server, user)
    expect(events.map((event: any) => event.points).toSorted()).toEqual([0, 142])
    expect(events.find((event: any) => event.points === 142)).toMatchObject({
      type: "purchase",
      metadata: { nfce_id: res.body.task_id, valor_total: 94.99, items_count: 3, confirmed_by: "state_page" }
    })
  })

  it("an online QR is credited from the gateway's total and item count", async () => {
    const user = await member(0)
    const key = keyOf()
    setFixtures({ [key]: { status: "ok", total_cents: 2000, items_count: 3, issued_at: new Date().toISOString() } })
    const res = await scan(server, user, onlineQr(key))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(await settled(server, user, res.body.task_id)).toMatchObject({ status: "completed", points: 30 })
    const [item] = await receiptEvents(server, user)
    expect(item).toMatchObject({ type: "purchase", points: 30 })
    expect(item.metadata).toMatchObject({ nfce_id: res.body.task_id, valor_total: 20, items_count: 3 })
  })

  it("a gateway outcome other than ok fails the task with its reason, crediting nothing", async () => {
    const user = await member(0)
    const key = keyOf()
    setFixtures({ [key]: { status: "captcha_required", detail: "hCaptcha" } })
    const res = await scan(server, user, onlineQr(key))
    const done = await settled(server, user, res.body.task_id)
    expect(done).toMatchObject({ status: "failed", points: null })
    expect(done.message).toMatch(/captcha/)
    expect((await wallet(server, user, tenant)).saldo_pontos).toBe(0)
  })

  it("a failed scan spends nothing: scanning the receipt again reopens its task, once, for whoever scans", async () => {
    const [owner, other] = [await member(0), await member(0)]
    const key = keyOf()
    setFixtures({ [key]: { status: "not_found", detail: "cStat 217" } })
    const res = await scan(server, owner, onlineQr(key))
    expect(await settled(server, owner, res.body.task_id)).toMatchObject({ status: "failed" })

    // Still unknown to the state: the same user's rescan reopens the same task, which fails again.
    const again = await scan(server, owner, onlineQr(key))
    expect(again.status, JSON.stringify(again.body)).toBe(202)
    expect(again.body.task_id).toBe(res.body.task_id)
    expect(await settled(server, owner, res.body.task_id)).toMatchObject({ status: "failed" })

    // The state knows it now: parallel rescans by another user reopen it once, and it credits once.
    setFixtures({ [key]: { status: "ok", total_cents: 1000, items_count: 2, issued_at: null } })
    const rescans = await Promise.all(Array.from({ length: 6 }, () => scan(server, other, onlineQr(key))))
    expect(rescans.map((r) => r.status).toSorted()).toEqual([202, 409, 409, 409, 409, 409])
    expect(await settled(server, other, res.body.task_id)).toMatchObject({ status: "completed", points: 15 })
    expect((await wallet(server, other, tenant)).saldo_pontos).toBe(15)
    expect((await progressOf(server, owner, res.body.task_id)).status).toBe(404)
    expectRefusal(await scan(server, owner, onlineQr(key)), "NFCE_CLAIMED_BY_OTHER")
  })

  it("refuses a QR at once with a 422 naming the reason", async () => {
    const user = await member(0)
    const good = keyOf()
    const cases: Array<[string, string, RegExp]> = [
      ["https://loja.example.com/promo?utm=receipt", "not_nfce", /./],
      [sp(`${good.slice(0, 43)}${(Number(good[43]) + 1) % 10}|3|1`), "check_digit", /check digit/i],
      [sp(`${keyOf({ model: "55" })}|3|1`), "not_model_65", /65/],
      [onlineQr().replace("www.nfce.fazenda.sp.gov.br", "www.sefaz.rs.gov.br"), "host_not_official", /./],
      [sp(`${keyOf({ aamm: "2001" })}|3|1`), "too_old", /./],
      [sp(`${keyOf({ aamm: "9912" })}|3|1`), "issued_in_future", /./],
      [sp(`${keyOf()}|3|2`), "test_environment", /./]
    ]
    for (const [qr, type, text] of cases) {
      const res = await scan(server, user, qr)
      expect(res.status, `${qr}: ${JSON.stringify(res.body)}`).toBe(422)
      expect(res.body.detail).toEqual([{ loc: ["body", "qr_code"], msg: expect.stringMatching(text), type }])
    }
  })

  it("a receipt of a CNPJ no store registered is a 404 that says so", async () => {
    const user = await member(0)
    const res = await scan(server, user, offlineQr("10.00", keyOf({ tpEmis: "9", cnpj: UNKNOWN_CNPJ })))
    expect(res.status).toBe(404)
    expect(res.body.detail).toContain(UNKNOWN_CNPJ)
    expect(res.body.detail).toMatch(/No store/)
  })

  it("a second scan is 409: the same user gets the earlier task, another user a distinct code", async () => {
    const [first, second] = await Promise.all([member(0), member(0)])
    const qr = offlineQr("10.00")
    const accepted = await scan(server, first, qr)
    expect(accepted.status).toBe(202)
    const again = await scan(server, first, qr)
    expectRefusal(again, "NFCE_ALREADY_SCANNED")
    expect(again.body.detail.task_id).toBe(accepted.body.task_id)
    const other = await scan(server, second, qr)
    expectRefusal(other, "NFCE_CLAIMED_BY_OTHER")
    expect(other.body.detail.task_id).toBeUndefined()
    // Pending, the receipt is still claimed.
    await settled(server, first, accepted.body.task_id)
    expect((await wallet(server, first, tenant)).pending_points).toBe(15)
    expectRefusal(await scan(server, second, qr), "NFCE_CLAIMED_BY_OTHER")
  })

  it("20 parallel scans of one receipt by two users credit once", async () => {
    const users = await Promise.all([member(0), member(0)])
    const key = keyOf()
    fixtures.add({ [key]: ok(5000) })
    const qr = onlineQr(key)
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => scan(server, users[i % 2]!, qr)))
    const accepted = results.filter((res) => res.status === 202)
    expect(accepted).toHaveLength(1)
    expect(results.filter((res) => res.status === 409)).toHaveLength(19)
    const owner = users[results.indexOf(accepted[0]!) % 2]!
    await settled(server, owner, accepted[0]!.body.task_id)
    const balances = await Promise.all(users.map(async (user) => (await wallet(server, user, tenant)).saldo_pontos))
    expect(balances.toSorted()).toEqual([0, 75])
    expect(await receiptEvents(server, owner)).toHaveLength(1)
  })

  it("another user's task is a 404", async () => {
    const [owner, stranger] = await Promise.all([member(0), member(0)])
    const res = await scan(server, owner, offlineQr("1.00"))
    expect((await progressOf(server, stranger, res.body.task_id)).status).toBe(404)
    expect((await progressOf(server, owner, res.body.task_id)).status).toBe(200)
  })

  it("needs a bearer token", async () => {
    const res = await call(server, "/api/v1/nfce/decode-qr", { body: { qr_code: offlineQr("1.00") } })
    expect(res.status).toBe(401)
  })
})

describe("NFC-e for the company", async () => {
  const { server, tenant, member } = await useEndUserServer(serverEnv)
  /** The RFB's example of an alphanumeric CNPJ (letters in the first 12 positions). */
  const SHOP_CNPJ = "12ABC34501DE35"
  const cnpjs = (t: Tenant) => call(server, "/api/v1/public/nfce/cnpjs", { key: t.key })

  it("registers a shop's CNPJ, whose receipts then credit here, lists and removes it", async () => {
    const added = await call(server, "/api/v1/public/nfce/cnpjs", {
      key: tenant.key,
      body: { cnpj: "12.abc.345/01de-35" }
    })
    expect(added.status, JSON.stringify(added.body)).toBe(201)
    expect(added.body).toEqual({
      cnpj: SHOP_CNPJ,
      created_at: expect.any(String),
      proven: false,
      proven_by: null,
      proven_at: null
    })
    expect((await cnpjs(tenant)).body).toEqual({ data: [added.body], profile_cnpj: null })

    const other = await createTenant(server)
    const taken = await call(server, "/api/v1/public/nfce/cnpjs", { key: other.key, body: { cnpj: SHOP_CNPJ } })
    expectRefusal(taken, "CNPJ_TAKEN")
    const invalid = await call(server, "/api/v1/public/nfce/cnpjs", {
      key: other.key,
      body: { cnpj: "12ABC34501DE36" }
    })
    expect(invalid.status).toBe(422)

    // Its receipts credit once an admin has proven the CNPJ is the store's.
    const user = await member(0)
    const unproven = await scan(server, user, offlineQr("12.00", keyOf({ tpEmis: "9", cnpj: SHOP_CNPJ })))
    expect(unproven.status, JSON.stringify(unproven.body)).toBe(422)
    expect(unproven.body.detail[0].type).toBe("cnpj_unproven")
    expect(await proveCnpj(server, tenant, SHOP_CNPJ)).toMatchObject({ proven: true, proven_by: "admin" })
    expect((await cnpjs(tenant)).body.data).toEqual([expect.objectContaining({ cnpj: SHOP_CNPJ, proven: true })])
    const res = await scan(server, user, offlineQr("12.00", keyOf({ tpEmis: "9", cnpj: SHOP_CNPJ })))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    await settled(server, user, res.body.task_id)

    const removed = await call(server, `/api/v1/public/nfce/cnpjs/${SHOP_CNPJ}`, { method: "DELETE", key: tenant.key })
    expect(removed.status).toBe(200)
    expect((await cnpjs(tenant)).body.data).toEqual([])
    const after = await scan(server, user, offlineQr("12.00", keyOf({ tpEmis: "9", cnpj: SHOP_CNPJ })))
    expect(after.status).toBe(404)
    const again = await call(server, `/api/v1/public/nfce/cnpjs/${SHOP_CNPJ}`, { method: "DELETE", key: tenant.key })
    expect(again.status).toBe(404)
  })

  it("lists the scanned receipts with status and date filters", async () => {
    await registerCnpj(server, tenant)
    const user = await member(0)
    const failedKey = keyOf()
    const completedKey = keyOf()
    setFixtures({ [failedKey]: { status: "not_found", detail: "cStat 217" }, [completedKey]: ok(3000, null) })
    const before = new Date().toISOString()
    const completed = await scan(server, user, onlineQr(completedKey))
    const failed = await scan(server, user, onlineQr(failedKey))
    await settled(server, user, completed.body.task_id)
    await settled(server, user, failed.body.task_id)
    const list = (query: string) => call(server, `/api/v1/public/nfce/invoices?${query}`, { key: tenant.key })

    const done = await list(`status=completed&from=${encodeURIComponent(before)}`)
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.data.map((invoice: any) => invoice.id)).toContain(completed.body.task_id)
    expect(done.body.data.every((invoice: any) => invoice.status === "completed")).toBe(true)
    expect(done.body.data.find((invoice: any) => invoice.id === completed.body.task_id)).toMatchObject({
      valor_total: 30,
      points_credited: 45,
      items_count: null
    })
    const failures = await list("status=failed")
    expect(failures.body.data.map((invoice: any) => invoice.id)).toEqual([failed.body.task_id])
    expect(failures.body.data[0].message).toMatch(/does not know this invoice/)
    // Scans of earlier tests came before `before`: the window's end leaves out exactly the two new ones.
    const earlier = await list(`to=${encodeURIComponent(before)}`)
    expect(earlier.body.total).toBe((await list("")).body.total - 2)
    expect(earlier.body.data.map((invoice: any) => invoice.id)).not.toContain(completed.body.task_id)
  })
  it("works from the CLI: a CNPJ registered, its receipts listed, a QR code inspected by support", async () => {
    const shop = await createTenant(server)
    const cli = (key: string, ...args: string[]) => fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: key })
    const CLI_CNPJ = "99887766000105"

    const added = json(await cli(shop.key, "nfce-store", "add-cnpj", "99.887.766/0001-05", "--json"))
    expect(added).toMatchObject({ cnpj: CLI_CNPJ, created_at: expect.any(String), proven: false })
    const listed = json<{ data: Array<{ cnpj: string }> }>(await cli(shop.key, "nfce-store", "cnpjs", "--json"))
    expect(listed.data.map((row) => row.cnpj)).toEqual([CLI_CNPJ])
    const taken = await cli(tenant.key, "nfce-store", "add-cnpj", CLI_CNPJ)
    expect(taken.code).toBe(ExitCode.Conflict)
    expect(taken.stderr).toMatch(/CNPJ/)
    // Support lists the claims waiting for proof and proves this one, once it has checked the store's papers.
    const waiting = json<{ data: Array<{ cnpj: string }> }>(
      await cli(server.adminKey, "nfce", "cnpj-claims", "--proven", "false", "--json")
    )
    expect(waiting.data.map((claim) => claim.cnpj)).toContain(CLI_CNPJ)
    const proven = json(
      await cli(server.adminKey, "nfce", "prove-cnpj-claim", CLI_CNPJ, "--empresa-id", shop.empresa.id, "--json")
    )
    expect(proven).toMatchObject({ cnpj: CLI_CNPJ, empresa_id: shop.empresa.id, proven: true, proven_by: "admin" })

    const user = await member(0)
    const key = keyOf({ tpEmis: "9", cnpj: CLI_CNPJ })
    // The state's page already shows this offline receipt: its first look confirms it.
    fixtures.add({ [key]: ok(800) })
    const qr = offlineQr("8.00", key)
    const res = await scan(server, user, qr)
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    await settled(server, user, res.body.task_id)
    const page = json<{ data: Array<Record<string, unknown>>; total: number }>(
      await cli(shop.key, "nfce-store", "invoices", "--status", "completed", "--json")
    )
    expect(page.total).toBe(1)
    expect(page.data[0]).toMatchObject({ id: res.body.task_id, status: "completed", valor_total: 8 })
    const none = json<{ total: number }>(await cli(shop.key, "nfce-store", "invoices", "--status", "failed", "--json"))
    expect(none.total).toBe(0)

    // Inspecting is support tooling: the admin key decodes without crediting; a company key is refused.
    const inspected = json(await cli(server.adminKey, "nfce", "inspect", "--qr-code", qr, "--json"))
    expect(inspected).toMatchObject({
      valid: true,
      invoice: { uf: "SP", tp_amb: 1, offline: { total_cents: 800 } }
    })
    const promo = json(
      await cli(server.adminKey, "nfce", "inspect", "--qr-code", "https://example.com/promo", "--json")
    )
    expect(promo).toMatchObject({ valid: false, refusal: { reason: expect.any(String), message: expect.any(String) } })
    expect((await cli(shop.key, "nfce", "inspect", "--qr-code", qr)).code).toBe(ExitCode.Auth)
    expect((await wallet(server, user, shop)).saldo_pontos).toBeGreaterThan(0)
  })
})

/** Two server starts on one database, on a loaded machine. */
const TWO_STARTS_MS = 240_000

describe("NFC-e tasks survive a restart", () => {
  it(
    "a task whose state page was down when the server died completes after the restart",
    { timeout: TWO_STARTS_MS },
    async () => {
      const sink = await startSmtpSink()
      const real = realServerUrl()
      const database = real === undefined ? undefined : await createRealDatabase(real)
      const dataDir = mkdtempSync(join(tmpdir(), "fidelis-nfce-crash-"))
      const options = {
        ...(database === undefined ? { embedded: true } : { databaseUrl: database.url }),
        env: {
          FIDELIS_SMTP_URL: sink.url,
          FIDELIS_PASSWORD_COST: "10",
          ...fixtures.env,
          FIDELIS_JOB_BACKOFF_BASE_SECONDS: "1",
          FIDELIS_JOB_LEASE_SECONDS: "10",
          ...(database === undefined ? { FIDELIS_DATA_DIR: dataDir } : {})
        }
      }
      try {
        const key = keyOf()
        setFixtures({ [key]: { status: "unavailable", detail: "503 from the state" } })
        const first = await startServer(options)
        const tenant = await createTenant(first)
        await registerCnpj(first, tenant)
        const user = await memberOf(first, sink, tenant, 0)
        const res = await scan(first, user, onlineQr(key))
        expect(res.status, JSON.stringify(res.body)).toBe(202)
        // The state is down: the task waits for another try, then the process dies without shutting down.
        const deadline = Date.now() + 20_000
        while ((await progressOf(first, user, res.body.task_id)).body.progress < 50) {
          if (Date.now() > deadline) throw new Error("the first server never asked the gateway")
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect((await progressOf(first, user, res.body.task_id)).body.status).toBe("processing")
        await first.crash()

        setFixtures({ [key]: { status: "ok", total_cents: 1000, items_count: 1, issued_at: null } })
        const second = await startServer(options)
        try {
          expect(await settled(second, user, res.body.task_id)).toMatchObject({ status: "completed", points: 15 })
          expect((await wallet(second, user, tenant)).saldo_pontos).toBe(15)
        } finally {
          await second.stop()
        }
      } finally {
        await sink.close()
        await database?.drop()
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
  )
})
