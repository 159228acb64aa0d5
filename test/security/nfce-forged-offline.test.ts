import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { makeCertificate } from "../../packages/core/test/certificates.js"
import { expectRefusal, useEndUserServer, type Member } from "../support/accounts.js"
import { createProduct, createReward, updateSettings } from "../support/fixtures.js"
import { call, createTenant } from "../support/http.js"
import {
  nfceFixtures,
  nfceShop,
  offlineQr,
  receiptEvents,
  scan,
  settled,
  v2OfflineQr,
  v3OfflineQr,
  wallet
} from "../support/nfce.js"

/**
 * The attack: a verified user posts made-up offline (contingency, tpEmis 9) QR codes for a store's
 * CNPJ with any total, a new invoice number each time, and is credited floor(total × points_per_real).
 * An offline receipt's total is only the store's word, so its points must wait, unspendable, for the
 * state's page or the store's own proof (CSC hash, certificate signature).
 */
const fixtures = nfceFixtures()
const CSC = "A1B2C3D4-E5F6-4789-ABCD-0123456789EF"
const { server, member } = await useEndUserServer({
  ...fixtures.env,
  FIDELIS_SECRET_KEY: randomBytes(32).toString("base64"),
  FIDELIS_NFCE_RECHECK_BASE_SECONDS: "1",
  FIDELIS_NFCE_RECHECK_MAX_SECONDS: "2"
})

const pendingOf = (user: Member, taskId: string) => settled(server, user, taskId)
const confirmed = (user: Member, taskId: string) =>
  settled(server, user, taskId, { passing: ["processing", "pending"] })
const me = async (user: Member) => (await call(server, "/api/v1/users/me", { headers: user.auth })).body

const shop = (settings: Record<string, unknown> = {}) => nfceShop(server, settings)

describe("forged offline NFC-e receipts", () => {
  it("earn pending points only: not in the balance, not earned, shown apart in the wallet and /users/me", async () => {
    const { store: tenant, offlineKey } = await shop()
    const user = await member(0)
    // The report's three requests: new invoice numbers, the largest totals the store takes.
    const tasks = []
    for (const total of ["9999.99", "9999.98", "9999.97"]) {
      const res = await scan(server, user, offlineQr(total, offlineKey()))
      expect(res.status, JSON.stringify(res.body)).toBe(202)
      tasks.push(res.body.task_id as string)
    }
    const pending = await Promise.all(tasks.map((task) => pendingOf(user, task)))
    expect(pending.map((task) => task.status)).toEqual(["pending", "pending", "pending"])
    expect(pending.map((task) => task.pending_points)).toEqual([14999, 14999, 14999])
    expect(pending.every((task) => task.points === null && typeof task.confirm_by === "string")).toBe(true)

    expect(await wallet(server, user, tenant)).toMatchObject({
      saldo_pontos: 0,
      pending_points: 3 * 14999,
      total_earned: 0
    })
    const wallets = (await call(server, "/api/v1/establishments/user/wallets", { headers: user.auth })).body.wallets
    const here = wallets.find((candidate: any) => candidate.empresa_id === tenant.empresa.id)
    expect(here).toMatchObject({ saldo_pontos: 0, pending_points: 3 * 14999 })
    expect((await me(user)).stats).toMatchObject({ total_points: 0, pending_points: 3 * 14999 })
    // The store's own view of the client: nothing to spend.
    const balance = await call(server, `/api/v1/public/points/${here.id}`, { key: tenant.key })
    expect(balance.body.balance).toBe(0)
    const events = await receiptEvents(server, user)
    expect(events).toHaveLength(3)
    expect(events.every((event: any) => event.points === 0 && event.metadata.pending_points === 14999)).toBe(true)
  })

  it("cannot be spent: rewards show can_redeem false, redeeming and checking out are refused", async () => {
    const { store: tenant, offlineKey } = await shop()
    const user = await member(0)
    const res = await scan(server, user, offlineQr("500.00", offlineKey()))
    expect((await pendingOf(user, res.body.task_id)).pending_points).toBe(750)

    const product = await createProduct(server, tenant, { name: "Caneca", points_cost: 100, stock: 5 })
    const reward = await createReward(server, tenant, { product_id: product.id, pontos_necessarios: 100 })
    const rewards = await call(server, `/api/v1/rewards?empresa_id=${tenant.empresa.id}`, { headers: user.auth })
    expect(rewards.body.user_summary.total_points).toBe(0)
    expect(rewards.body.rewards.find((r: any) => r.uid === reward.id)).toMatchObject({ can_redeem: false })
    const redeem = await call(server, `/api/v1/rewards/${reward.id}/redeem`, { headers: user.auth, body: {} })
    expectRefusal(redeem, "INSUFFICIENT_POINTS")

    const cart = await call(server, "/api/v1/cart/add", {
      headers: user.auth,
      body: { store_id: tenant.empresa.id, product_uid: product.id, quantity: 1 }
    })
    expect(cart.status, JSON.stringify(cart.body)).toBe(200)
    const checkout = await call(server, "/api/v1/cart/checkout", {
      headers: user.auth,
      body: { cart_id: cart.body.cart_id }
    })
    expectRefusal(checkout, "INSUFFICIENT_POINTS")
    expect(await wallet(server, user, tenant)).toMatchObject({ saldo_pontos: 0, pending_points: 750 })
  })

  it("become a balance once the state's page shows the invoice, credited on the page's total, once", async () => {
    const { store: tenant, offlineKey } = await shop()
    const user = await member(0)
    const key = offlineKey()
    const res = await scan(server, user, offlineQr("80.00", key))
    expect((await pendingOf(user, res.body.task_id)).pending_points).toBe(120)
    // The merchant transmits the note; the state's page says what was really paid.
    fixtures.add({ [key]: { status: "ok", total_cents: 4000, items_count: 2, issued_at: null } })
    expect(await confirmed(user, res.body.task_id)).toMatchObject({ status: "completed", points: 60 })
    expect(await wallet(server, user, tenant)).toMatchObject({ saldo_pontos: 60, pending_points: 0, total_earned: 60 })
    expect((await me(user)).stats).toMatchObject({ total_points: 60, pending_points: 0 })
    const credits = (await receiptEvents(server, user)).filter((event: any) => event.points > 0)
    expect(credits).toEqual([
      expect.objectContaining({ points: 60, metadata: expect.objectContaining({ confirmed_by: "state_page" }) })
    ])
  })
})

describe("offline receipts the store's own proof confirms", () => {
  it("a v2 hash made with the CSC the store registered confirms at once; a forged one stays pending", async () => {
    const { store, cnpj, offlineKey } = await shop()
    const user = await member(0)
    const registered = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/cscs/1`, {
      method: "PUT",
      key: store.key,
      body: { csc_token: CSC }
    })
    expect(registered.status, JSON.stringify(registered.body)).toBe(200)
    expect(registered.body).toEqual({ cnpj, csc_id: 1, token_hint: "****89EF", created_at: expect.any(String) })
    const listed = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/proofs`, { key: store.key })
    expect(listed.body).toMatchObject({ cnpj, cscs: [registered.body], certificate: null })
    expect(JSON.stringify(listed.body)).not.toContain("A1B2C3D4")

    // The state's page knows none of these invoices: only the hash can confirm them.
    const genuine = await scan(server, user, v2OfflineQr({ total: "20.00", csc: CSC, key: offlineKey() }))
    expect(genuine.status, JSON.stringify(genuine.body)).toBe(202)
    expect(await confirmed(user, genuine.body.task_id)).toMatchObject({ status: "completed", points: 30 })

    const forged = await scan(
      server,
      user,
      v2OfflineQr({ total: "2000.00", csc: "NOT-THE-STORES-CSC-0000000000000", key: offlineKey() })
    )
    expect(await pendingOf(user, forged.body.task_id)).toMatchObject({ status: "pending", pending_points: 3000 })
    // A genuine hash under a CSC id the store never registered proves nothing either.
    const otherId = await scan(server, user, v2OfflineQr({ total: "10.00", csc: CSC, cscId: 2, key: offlineKey() }))
    expect(await pendingOf(user, otherId.body.task_id)).toMatchObject({ status: "pending" })
    expect(await wallet(server, user, store)).toMatchObject({ saldo_pontos: 30, pending_points: 3015 })
  })

  it("a v3 signature by the store's registered certificate confirms at once; another key's stays pending", async () => {
    const { store, cnpj, offlineKey } = await shop()
    const user = await member(0)
    const [certificate, impostor] = await Promise.all([
      makeCertificate({ cn: "LOJA TESTE LTDA:11222333000181" }),
      makeCertificate()
    ])
    const registered = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/certificate`, {
      method: "PUT",
      key: store.key,
      body: { certificate_pem: certificate.pem }
    })
    expect(registered.status, JSON.stringify(registered.body)).toBe(200)
    expect(registered.body).toMatchObject({
      cnpj,
      subject: "CN=LOJA TESTE LTDA:11222333000181, C=BR",
      not_before: expect.any(String),
      not_after: expect.any(String),
      fingerprint_sha256: expect.any(String)
    })

    const genuine = await scan(server, user, v3OfflineQr({ total: "12.50", sign: certificate.sign, key: offlineKey() }))
    expect(genuine.status, JSON.stringify(genuine.body)).toBe(202)
    expect(await confirmed(user, genuine.body.task_id)).toMatchObject({ status: "completed", points: 18 })
    const signedByOther = await scan(
      server,
      user,
      v3OfflineQr({ total: "999.00", sign: impostor.sign, key: offlineKey() })
    )
    expect(await pendingOf(user, signedByOther.body.task_id)).toMatchObject({ status: "pending" })
    // The report's QR: a made-up signature.
    const madeUp = await scan(server, user, offlineQr("999.00", offlineKey()))
    expect(await pendingOf(user, madeUp.body.task_id)).toMatchObject({ status: "pending" })
    expect((await wallet(server, user, store)).saldo_pontos).toBe(18)
  })

  it("the store registers proofs only for its own CNPJs, and only a readable, unexpired RSA certificate", async () => {
    const { store, cnpj } = await shop()
    const stranger = await createTenant(server)
    const put = (key: string, path: string, body: unknown) =>
      call(server, `/api/v1/public/nfce/cnpjs/${path}`, { method: "PUT", key, body })

    expect((await put(stranger.key, `${cnpj}/cscs/1`, { csc_token: CSC })).status).toBe(404)
    const pem = (await makeCertificate()).pem
    expect((await put(stranger.key, `${cnpj}/certificate`, { certificate_pem: pem })).status).toBe(404)

    const cases: Array<[string, RegExp]> = [
      ["not a certificate", /PEM/],
      [(await makeCertificate({ ec: true })).pem, /RSA/],
      [(await makeCertificate({ fromDays: -30, toDays: -1 })).pem, /expired/],
      ["-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", /private key/]
    ]
    for (const [certificate_pem, message] of cases) {
      const res = await put(store.key, `${cnpj}/certificate`, { certificate_pem })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.detail).toEqual([
        { loc: ["body", "certificate_pem"], msg: expect.stringMatching(message), type: "invalid_certificate" }
      ])
    }
    const short = await put(store.key, `${cnpj}/cscs/1`, { csc_token: "short" })
    expect(short.status).toBe(422)

    // Removing them: the CSC by its id, the certificate, then nothing is left.
    expect((await put(store.key, `${cnpj}/cscs/7`, { csc_token: CSC })).status).toBe(200)
    expect((await put(store.key, `${cnpj}/certificate`, { certificate_pem: pem })).status).toBe(200)
    const remove = (path: string) =>
      call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/${path}`, { method: "DELETE", key: store.key })
    expect((await remove("cscs/7")).status).toBe(200)
    expect((await remove("certificate")).status).toBe(200)
    expect((await remove("cscs/7")).status).toBe(404)
    const proofs = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/proofs`, { key: store.key })
    // The profile CNPJ an admin set is proven from the start.
    expect(proofs.body).toEqual({
      cnpj,
      cscs: [],
      certificate: null,
      proven: true,
      proven_by: "profile",
      proven_at: expect.any(String)
    })
  })
})

describe("offline receipt totals", () => {
  it("above the store's ceiling, or worth more points than a credit holds, are a 422 at scan time", async () => {
    const { store, offlineKey } = await shop()
    const user = await member(0)
    const refused = async (total: string, type: string) => {
      const res = await scan(server, user, offlineQr(total, offlineKey()))
      expect(res.status, `${total}: ${JSON.stringify(res.body)}`).toBe(422)
      expect(res.body.detail).toEqual([{ loc: ["body", "qr_code"], msg: expect.stringContaining("R$"), type }])
    }
    // The default ceiling (R$ 10,000.00), then the largest total a QR code can state.
    await refused("10000.01", "total_above_limit")
    await refused("9999999999999.99", "total_above_limit")
    await updateSettings(server, store, { nfce_max_total: 100 })
    await refused("100.01", "total_above_limit")
    // The highest ceiling and rate a store may set: the points would not fit one credit.
    await updateSettings(server, store, { nfce_max_total: 10_000_000, points_per_real: 1000 })
    await refused("9999999.99", "total_out_of_range")
    await refused("9999999999999.99", "total_above_limit")
    expect((await me(user)).stats).toMatchObject({ total_points: 0, pending_points: 0 })
    expect((await call(server, "/api/v1/public/nfce/invoices", { key: store.key })).body.total).toBe(0)
  })
})

describe("per-user receipts a day", () => {
  it("past the store's limit, parallel scans are a 429 with Retry-After; other users are not held back", async () => {
    const { offlineKey } = await shop({ nfce_receipts_per_day: 3 })
    const [greedy, other] = await Promise.all([member(0), member(0)])
    const results = await Promise.all(
      Array.from({ length: 8 }, () => scan(server, greedy, offlineQr("10.00", offlineKey())))
    )
    expect(results.map((res) => res.status).toSorted()).toEqual([202, 202, 202, 429, 429, 429, 429, 429])
    for (const res of results.filter((candidate) => candidate.status === 429)) {
      const wait = Number(res.headers.get("retry-after"))
      expect(Number.isInteger(wait) && wait > 0 && wait <= 86_400, String(wait)).toBe(true)
      expect(JSON.stringify(res.body)).toMatch(/24 hours/)
    }
    expect((await scan(server, other, offlineQr("10.00", offlineKey()))).status).toBe(202)
  })
})
