import { describe, expect, it } from "vitest"
import { createCampaign, creditPoints } from "../support/fixtures.js"
import { bearer, registerAccount, useEndUserServer, verifyEmail } from "../support/accounts.js"
import { call, createClient, createTenant, type Tenant } from "../support/http.js"

/**
 * Referral farming: one person registering many accounts with their own code (`farmer+1@…`,
 * `f.a.r.m.e.r@gmail.com`), or many accounts completing referrals for one referrer, to be paid the
 * campaign's bonuses again and again; and referrals completed by a bonus rather than a purchase.
 */
const { server, sink } = await useEndUserServer({ FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: "10000" })

let counter = 0
/** A Gmail address no other test of the file uses. */
const gmail = () => `farmer${Date.now().toString(36)}${counter++}@gmail.com`

const register = (email: string, referralCode?: string) =>
  call(server, "/api/v1/auth/register", {
    body: { email, password: "segredo123", nome: "Fazendeiro", ...(referralCode && { referral_code: referralCode }) }
  })

const me = async (token: string) => (await call(server, "/api/v1/users/me", { headers: bearer(token) })).body

/** A verified account and its referral code. */
const referrer = async (email = gmail()) => {
  await registerAccount(server, { email })
  // Verifying ends the registration's session: the account logs in again.
  const session = await verifyEmail(server, sink, email)
  return { ...session, code: (await me(session.access_token)).referral_code as string }
}

const walletAt = async (store: Tenant, token: string) =>
  (await call(server, `/api/v1/establishments/stores/${store.empresa.id}/wallet`, { headers: bearer(token) })).body

/** A store running a campaign of 500 + 100, with the given settings. */
const storeWithCampaign = async (settings: Record<string, unknown> = {}) => {
  const store = await createTenant(server)
  if (Object.keys(settings).length > 0) {
    const res = await call(server, `/api/v1/internal/empresas/${store.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings }
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  await createCampaign(server, store, { name: "Indique", referrer_bonus: 500, referred_bonus: 100 })
  return store
}

/** A verified friend registered with `code`, and their client record at `store`. */
const friendAt = async (store: Tenant, code: string) => {
  const email = gmail()
  const res = await register(email, code)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  const session = await verifyEmail(server, sink, email)
  const client = await createClient(server, store, { email })
  return { token: session.access_token, clientId: client.id }
}

describe("referral farming", () => {
  it("refuses the referrer's own mailbox written another way as self-referral", async () => {
    const base = gmail()
    const farmer = await referrer(base)
    const [local] = base.split("@")
    const aliases = [
      ...[1, 2, 3, 4, 5].map((n) => `${local}+${n}@gmail.com`),
      `${local!.split("").join(".")}@gmail.com`,
      `${local!.toUpperCase()}+x@googlemail.com`
    ]
    for (const email of aliases) {
      const res = await register(email, farmer.code)
      expect(res.status, `${email}: ${JSON.stringify(res.body)}`).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "referral_code"], type: "self_referral" })
    }
    // Another person at the same provider is a referral like any other.
    expect((await register(gmail(), farmer.code)).status).toBe(201)
  })

  it("pays a referrer at most the store's referral_bonus_cap referrals, and says why on the timeline", async () => {
    const store = await storeWithCampaign({ referral_bonus_cap: 2 })
    const farmer = await referrer()
    const friends = []
    for (let i = 0; i < 4; i++) friends.push(await friendAt(store, farmer.code))
    for (const friend of friends) await creditPoints(server, store, friend.clientId, 10)

    expect((await walletAt(store, farmer.access_token)).saldo_pontos).toBe(2 * 500)
    const balances = await Promise.all(friends.map(async (f) => (await walletAt(store, f.token)).saldo_pontos))
    expect(balances).toEqual([110, 110, 10, 10])
    const timeline = (await call(server, "/api/v1/timeline", { headers: bearer(friends[3]!.token) })).body.items
    expect(timeline).toContainEqual(
      expect.objectContaining({
        type: "referral",
        points: 0,
        metadata: expect.objectContaining({ bonus_capped: true })
      })
    )
    // Every referral still completed: the referrer's count has all four.
    expect((await me(farmer.access_token)).stats.total_referrals).toBe(4)
  })

  it("keeps the cap when the referred accounts buy at the same moment", async () => {
    const store = await storeWithCampaign({ referral_bonus_cap: 2 })
    const farmer = await referrer()
    const friends = []
    for (let i = 0; i < 6; i++) friends.push(await friendAt(store, farmer.code))
    const results = await Promise.all(
      friends.map((friend) =>
        call(server, "/api/v1/public/points/credit", {
          key: store.key,
          body: { client_id: friend.clientId, points: 10 }
        })
      )
    )
    expect(results.map((res) => res.status)).toEqual(Array(6).fill(200))
    expect((await walletAt(store, farmer.access_token)).saldo_pontos).toBe(2 * 500)
  })

  it("caps at 10 referrals in 30 days by default", async () => {
    const store = await storeWithCampaign()
    const farmer = await referrer()
    for (let i = 0; i < 11; i++) {
      const friend = await friendAt(store, farmer.code)
      await creditPoints(server, store, friend.clientId, 1)
    }
    expect((await walletAt(store, farmer.access_token)).saldo_pontos).toBe(10 * 500)
  })

  it("completes a referral at the first purchase, never at a bonus credit", async () => {
    const store = await storeWithCampaign()
    const farmer = await referrer()
    const friend = await friendAt(store, farmer.code)
    for (const source of ["survey", "interaction", "reward", "referral", "Survey"]) {
      await creditPoints(server, store, friend.clientId, 5, { source })
    }
    expect((await walletAt(store, friend.token)).saldo_pontos).toBe(25)
    // Not paid, and so not even a client of the store yet.
    expect((await walletAt(store, farmer.access_token)).saldo_pontos ?? 0).toBe(0)

    await creditPoints(server, store, friend.clientId, 10, { source: "purchase" })
    expect((await walletAt(store, friend.token)).saldo_pontos).toBe(25 + 10 + 100)
    expect((await walletAt(store, farmer.access_token)).saldo_pontos).toBe(500)
  })
})
