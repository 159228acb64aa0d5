import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type SmtpSink } from "../packages/core/test/smtp-sink.js"
import {
  bearer,
  call,
  createCampaign,
  createClient,
  createTenant,
  creditPoints,
  generateCoupon,
  registerUser,
  uniqueEmail,
  useServer,
  verifyEmail,
  type EndUser,
  type Tenant
} from "./support/index.js"

const PUBLIC_URL = "https://fidelis.example.com"

/** A real SMTP server in this process: the verification links arrive here. */
const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({
  env: {
    FIDELIS_SMTP_URL: sink.url,
    FIDELIS_PASSWORD_COST: "10",
    FIDELIS_PUBLIC_URL: PUBLIC_URL,
    FIDELIS_USER_RATE_LIMIT_PER_MINUTE: "10000",
    FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: "10000"
  }
})

const get = (path: string, user: EndUser) => call(server, `/api/v1${path}`, { headers: bearer(user.token) })

const putProfile = (tenant: Tenant, body: unknown) =>
  call(server, "/api/v1/public/store-profile", { method: "PUT", key: tenant.key, body })

/** The user once the email is verified: the proof ended the registration's session, so with the new login's token. */
const verified = async (user: EndUser): Promise<EndUser> => ({
  ...user,
  token: (await verifyEmail(server, sink, user.email)).access_token
})

/** A registered user whose email is verified, so the stores' client records show. */
const verifiedUser = async (body: Record<string, unknown> = {}) => verified(await registerUser(server, body))

const UNKNOWN_STORE = "00000000-0000-4000-8000-000000000000"

describe("store profile (company API)", () => {
  it("sets and reads the public profile, normalising phone and handle", async () => {
    const tenant = await createTenant(server)
    const res = await putProfile(tenant, {
      description: "Pães artesanais",
      category: "Padaria",
      address: "Rua das Flores, 100",
      phone: "(11) 98765-4321",
      instagram: "@padariasol",
      business_hours: { monday: { open: "08:00", close: "18:00" }, tuesday: null },
      timezone: "america/recife",
      logo_url: "https://cdn.example.com/logo.png"
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({
      id: tenant.empresa.id,
      phone: "+5511987654321",
      instagram: "padariasol",
      business_hours: { monday: { open: "08:00", close: "18:00" } },
      timezone: "America/Recife",
      logo_url: "https://cdn.example.com/logo.png"
    })
    expect(res.body.business_hours).not.toHaveProperty("tuesday")
    const cleared = await putProfile(tenant, { logo_url: null, category: null })
    expect(cleared.body).toMatchObject({ logo_url: null, category: null, description: "Pães artesanais" })
    const read = await call(server, "/api/v1/public/store-profile", { key: tenant.key })
    expect(read.body).toEqual(cleared.body)
  })

  it("answers 422 per invalid field, and 401 without a key", async () => {
    const tenant = await createTenant(server)
    const res = await putProfile(tenant, {
      business_hours: { monday: { open: "25:00", close: "18:00" }, funday: { open: "08:00", close: "09:00" } },
      timezone: "Mars/Olympus_Mons",
      instagram: "not a handle!",
      phone: "123"
    })
    expect(res.status).toBe(422)
    const fields = (res.body.detail as Array<{ loc: string[] }>).map((item) => item.loc.join("."))
    expect(fields).toEqual(
      expect.arrayContaining([
        "body.business_hours.monday.open",
        "body.business_hours.funday",
        "body.timezone",
        "body.instagram",
        "body.phone"
      ])
    )
    expect((await call(server, "/api/v1/public/store-profile", { method: "PUT", body: {} })).status).toBe(401)
  })
})

describe("stores", () => {
  it("lists stores with the spec's envelope and pages through them", async () => {
    const tenant = await createTenant(server)
    const user = await registerUser(server)
    const first = await get("/stores?limit=1", user)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ page: 1, limit: 1, total: expect.any(Number) })
    expect(first.body.stores).toHaveLength(1)
    expect(first.body.stores[0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      logo_url: expect.toBeOneOf([null, expect.any(String)]),
      category: expect.toBeOneOf([null, expect.any(String)]),
      is_open: expect.any(Boolean)
    })
    const all = await get(`/stores?limit=100`, user)
    expect(all.body.stores.map((s: { id: string }) => s.id)).toContain(tenant.empresa.id)
    expect(all.body.total).toBe(first.body.total)
    const past = await get(`/stores?page=${first.body.total + 1}&limit=1`, user)
    expect(past.body).toMatchObject({ stores: [], total: first.body.total })
    expect((await get("/stores?limit=0", user)).status).toBe(422)
    expect((await get("/stores?limit=101", user)).status).toBe(422)
  })

  it("computes is_open in the store's own time zone, past midnight, at a fixed instant", async () => {
    const bar = await createTenant(server)
    const hours = { friday: { open: "18:00", close: "02:00" }, saturday: { open: "18:00", close: "02:00" } }
    await putProfile(bar, { business_hours: hours, timezone: "America/Sao_Paulo", category: "Bar" })
    const tokyo = await createTenant(server)
    await putProfile(tokyo, { business_hours: { friday: { open: "09:00", close: "17:00" } }, timezone: "Asia/Tokyo" })
    const user = await registerUser(server)
    const isOpen = async (store: Tenant, at: string) => {
      const res = await get(`/stores/${store.empresa.id}?at=${encodeURIComponent(at)}`, user)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.is_open as boolean
    }
    // Saturday 01:30 in São Paulo (UTC-3): Friday's opening runs until 02:00.
    expect(await isOpen(bar, "2026-03-07T04:30:00Z")).toBe(true)
    expect(await isOpen(bar, "2026-03-07T05:00:00Z")).toBe(false)
    // Sunday 01:00 in São Paulo: Saturday's opening, though Sunday itself is closed.
    expect(await isOpen(bar, "2026-03-08T04:00:00Z")).toBe(true)
    // Friday 10:00 in Tokyo is Thursday 22:00 in São Paulo: the same instant, two answers.
    expect(await isOpen(tokyo, "2026-03-06T01:00:00+00:00")).toBe(true)
    expect(await isOpen(bar, "2026-03-06T01:00:00+00:00")).toBe(false)
    const detail = await get(`/stores/${bar.empresa.id}`, user)
    expect(detail.body).toMatchObject({
      id: bar.empresa.id,
      name: bar.empresa.name,
      category: "Bar",
      business_hours: hours,
      timezone: "America/Sao_Paulo",
      is_open: expect.any(Boolean)
    })
    const listed = await get(`/stores?limit=100&at=2026-03-07T04:30:00Z`, user)
    const item = listed.body.stores.find((s: { id: string }) => s.id === bar.empresa.id)
    expect(item).toEqual({ id: bar.empresa.id, name: bar.empresa.name, logo_url: null, category: "Bar", is_open: true })
  })

  it("answers 404 for an unknown store, 422 for a malformed id or instant, 401 without a valid token", async () => {
    const user = await registerUser(server)
    expect((await get(`/stores/${UNKNOWN_STORE}`, user)).status).toBe(404)
    expect((await get("/stores/not-a-uuid", user)).status).toBe(422)
    expect((await get(`/stores/${UNKNOWN_STORE}?at=yesterday`, user)).status).toBe(422)
    for (const path of ["/stores", `/stores/${UNKNOWN_STORE}`, "/timeline", "/establishments/user/wallets"]) {
      expect((await call(server, `/api/v1${path}`)).status).toBe(401)
      const forged = await call(server, `/api/v1${path}`, { headers: bearer(`${user.token.slice(0, -4)}AAAA`) })
      expect(forged.status).toBe(401)
    }
  })
})

describe("wallets and timeline", () => {
  it("shows balances from the ledger after credits and a coupon spend, only once the email is verified", async () => {
    const padaria = await createTenant(server)
    const cafe = await createTenant(server)
    const email = uniqueEmail()
    const atPadaria = await createClient(server, padaria, { email })
    const atCafe = await createClient(server, cafe, { email })
    await creditPoints(server, padaria, atPadaria.id, 300)
    await creditPoints(server, padaria, atPadaria.id, 200)
    await generateCoupon(server, padaria, { client_id: atPadaria.id, points: 120 })
    await creditPoints(server, cafe, atCafe.id, 40)
    const registered = await registerUser(server, { email })
    expect((await get("/establishments/user/wallets", registered)).body).toEqual({ wallets: [] })
    expect((await get(`/establishments/stores/${padaria.empresa.id}/wallet`, registered)).status).toBe(404)
    const user = await verified(registered)

    const wallets = (await get("/establishments/user/wallets", user)).body.wallets
    expect(wallets).toHaveLength(2)
    expect(wallets).toEqual(
      expect.arrayContaining([
        {
          id: atPadaria.id,
          empresa_id: padaria.empresa.id,
          empresa_name: padaria.empresa.name,
          empresa_logo: null,
          saldo_pontos: 380,
          saldo_cashback: 0,
          pending_points: 0
        },
        expect.objectContaining({ empresa_id: cafe.empresa.id, saldo_pontos: 40 })
      ])
    )
    const wallet = await get(`/establishments/stores/${padaria.empresa.id}/wallet`, user)
    expect(wallet.body).toEqual({
      store_id: padaria.empresa.id,
      store_name: padaria.empresa.name,
      saldo_pontos: 380,
      saldo_cashback: 0,
      pending_points: 0,
      total_earned: 500,
      total_spent: 120
    })
    // The company API's cached balance agrees with the ledger the wallet sums.
    const balance = await call(server, `/api/v1/public/points/${atPadaria.id}`, { key: padaria.key })
    expect(balance.body.balance).toBe(380)

    const other = await verifiedUser()
    expect((await get(`/establishments/stores/${padaria.empresa.id}/wallet`, other)).status).toBe(404)
    expect((await get(`/establishments/stores/${UNKNOWN_STORE}/wallet`, user)).status).toBe(404)

    const timeline = await get("/timeline?page=1&limit=3", user)
    expect(timeline.status).toBe(200)
    expect(timeline.body.pagination).toEqual({
      page: 1,
      limit: 3,
      total: 4,
      total_pages: 2,
      has_next: true,
      has_prev: false
    })
    const [newest] = timeline.body.items
    expect(newest).toMatchObject({
      type: "purchase",
      points: 40,
      empresa: { id: cafe.empresa.id, name: cafe.empresa.name, logo_url: null }
    })
    const second = await get("/timeline?page=2&limit=3", user)
    expect(second.body.items).toHaveLength(1)
    expect(second.body.items[0]).toMatchObject({ points: 300, empresa: { id: padaria.empresa.id } })
    expect(second.body.pagination).toMatchObject({ has_next: false, has_prev: true })
    const times = [...timeline.body.items, ...second.body.items].map((item) => Date.parse(item.created_at))
    expect(times).toEqual(times.toSorted((a, b) => b - a))
    expect((await get("/timeline", other)).body.pagination.total).toBe(0)
    expect((await get("/timeline?limit=0", user)).status).toBe(422)
  })
})

describe("referral codes", () => {
  it("gives the link, the QR code and the store's running bonuses", async () => {
    const store = await createTenant(server)
    const user = await registerUser(server)
    const code = (await get("/users/me", user)).body.referral_code as string
    const none = await get(`/stores/${store.empresa.id}/referral-code`, user)
    expect(none.status).toBe(200)
    expect(none.body).toEqual({
      referral_code: code,
      referral_link: `${PUBLIC_URL}/account/register?referral_code=${code}&store=${store.empresa.id}`,
      qr_code_url: `${PUBLIC_URL}/api/v1/public/qr/referrals/${code}.svg?store_id=${store.empresa.id}`,
      rewards: { referrer_bonus: 0, referred_bonus: 0 }
    })
    await createCampaign(server, store, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const running = await get(`/stores/${store.empresa.id}/referral-code`, user)
    expect(running.body.rewards).toEqual({ referrer_bonus: 100, referred_bonus: 50 })

    const qr = await call(server, new URL(running.body.qr_code_url).pathname + new URL(running.body.qr_code_url).search)
    expect(qr.status).toBe(200)
    expect(qr.headers.get("content-type")).toBe("image/svg+xml")
    expect(String(qr.body)).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect((await call(server, "/api/v1/public/qr/referrals/NOSUCHCODE.svg")).status).toBe(404)
    expect((await call(server, `/api/v1/public/qr/referrals/${code}.svg?store_id=${UNKNOWN_STORE}`)).status).toBe(404)
    expect((await get(`/stores/${UNKNOWN_STORE}/referral-code`, user)).status).toBe(404)
    expect((await call(server, `/api/v1/stores/${store.empresa.id}/referral-code`)).status).toBe(401)
  })
})

const register = (body: Record<string, unknown>) =>
  call(server, "/api/v1/auth/register", {
    body: { email: uniqueEmail(), password: "segredo123", nome: "Bia", ...body }
  })

const codeOf = async (user: EndUser) => (await get("/users/me", user)).body.referral_code as string

const walletAt = async (store: Tenant, user: EndUser) => get(`/establishments/stores/${store.empresa.id}/wallet`, user)

/** A referrer, and a verified friend who registered with the referrer's code and is a client of `store`. */
const referredAt = async (store: Tenant, referrer: EndUser) => {
  const friend = await verified(
    await registerUser(server, { referral_code: await codeOf(referrer), nome: "Bia Amiga" })
  )
  const client = await createClient(server, store, { email: friend.email, nome: "Bia Amiga" })
  return { friend, client }
}

describe("referral completion", () => {
  it("credits both bonuses once, at the first earning at a store running a campaign", async () => {
    const store = await createTenant(server)
    await createCampaign(server, store, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const referrer = await verifiedUser()
    const { friend, client } = await referredAt(store, referrer)

    const first = await creditPoints(server, store, client.id, 10)
    // The credit's own answer is the earning; the bonus is a second ledger entry in its transaction.
    expect(first).toMatchObject({ credited: 10, balance: 10 })
    await creditPoints(server, store, client.id, 10)
    expect((await walletAt(store, friend)).body).toMatchObject({ saldo_pontos: 70, total_earned: 70 })
    // The referrer had no client record at this store: one was made, linked to the account.
    expect((await walletAt(store, referrer)).body).toMatchObject({ saldo_pontos: 100, total_earned: 100 })
    expect((await get("/users/me", referrer)).body.stats.total_referrals).toBe(1)
    const events = (await get("/timeline", referrer)).body.items
    expect(events[0]).toMatchObject({
      type: "referral",
      points: 100,
      metadata: { referred_name: "Bia Amiga", referral_id: expect.any(String) }
    })

    // A second store with a campaign pays nothing more: the referral completed once.
    const other = await createTenant(server)
    await createCampaign(server, other, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const there = await createClient(server, other, { email: friend.email })
    await creditPoints(server, other, there.id, 10)
    expect((await walletAt(other, friend)).body.saldo_pontos).toBe(10)
    expect((await walletAt(other, referrer)).status).toBe(404)
  })

  it("pays nothing where no campaign runs, and completes later at a store that runs one", async () => {
    const quiet = await createTenant(server)
    const referrer = await verifiedUser()
    const { friend, client } = await referredAt(quiet, referrer)
    await creditPoints(server, quiet, client.id, 10)
    expect((await walletAt(quiet, friend)).body.saldo_pontos).toBe(10)
    expect((await walletAt(quiet, referrer)).status).toBe(404)

    const busy = await createTenant(server)
    await createCampaign(server, busy, { name: "Indique", referrer_bonus: 30, referred_bonus: 20 })
    const there = await createClient(server, busy, { email: friend.email })
    await creditPoints(server, busy, there.id, 5)
    expect((await walletAt(busy, friend)).body.saldo_pontos).toBe(25)
    expect((await walletAt(busy, referrer)).body.saldo_pontos).toBe(30)
  })

  it("waits for the referred user's verified email", async () => {
    const store = await createTenant(server)
    await createCampaign(server, store, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const referrer = await verifiedUser()
    const friend = await registerUser(server, { referral_code: await codeOf(referrer) })
    const client = await createClient(server, store, { email: friend.email })
    await creditPoints(server, store, client.id, 10)
    const owner = await verified(friend)
    expect((await walletAt(store, owner)).body.saldo_pontos).toBe(10)
    await creditPoints(server, store, client.id, 10)
    expect((await walletAt(store, owner)).body.saldo_pontos).toBe(70)
  })

  it("credits the bonuses once when the referred user earns in parallel", async () => {
    const store = await createTenant(server)
    await createCampaign(server, store, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const referrer = await verifiedUser()
    const { friend, client } = await referredAt(store, referrer)
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(server, "/api/v1/public/points/credit", { key: store.key, body: { client_id: client.id, points: 1 } })
      )
    )
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(200))
    expect((await walletAt(store, friend)).body).toMatchObject({ saldo_pontos: 58, total_earned: 58 })
    expect((await walletAt(store, referrer)).body.saldo_pontos).toBe(100)
  })

  it("refuses an unknown code, the user's own, and a second referrer", async () => {
    const unknown = await register({ referral_code: "NOSUCHCODE" })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail[0]).toMatchObject({ loc: ["body", "referral_code"], type: "referral_code_unknown" })

    // The same CPF is the same person with a second account.
    const referrer = await verifiedUser({ cpf: "52998224725" })
    const self = await register({ referral_code: await codeOf(referrer), cpf: "529.982.247-25" })
    expect(self.status).toBe(422)
    expect(self.body.detail[0]).toMatchObject({ loc: ["body", "referral_code"], type: "self_referral" })

    // A code is taken only at registration: registering the account again is refused, so the first referrer stays.
    const store = await createTenant(server)
    await createCampaign(server, store, { name: "Indique", referrer_bonus: 100, referred_bonus: 50 })
    const { friend, client } = await referredAt(store, referrer)
    const second = await verifiedUser()
    const again = await register({ email: friend.email, referral_code: await codeOf(second) })
    expect(again.status).toBe(409)
    expect(again.body.detail.code).toBe("EMAIL_TAKEN")
    await creditPoints(server, store, client.id, 10)
    expect((await walletAt(store, referrer)).body.saldo_pontos).toBe(100)
    expect((await walletAt(store, second)).status).toBe(404)
  })
})
