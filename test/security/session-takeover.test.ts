import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSmtpSink } from "../../packages/core/test/smtp-sink.js"
import {
  bearer,
  call,
  createClient,
  createProduct,
  createReward,
  createSharedDatabase,
  createTenant,
  creditPoints,
  emailedToken,
  endUserEnv,
  expectRefusal,
  logIn,
  realServerUrl,
  registerAccount,
  startServer,
  uniqueEmail,
  type AccountSession,
  type ApiResponse,
  type Tenant,
  type TestDatabase,
  type TestServer
} from "../support/index.js"

/**
 * Taking over a balance the store created (security issue, item 2). A store creates the client
 * `victim@…` with points; anyone may register `victim@…` first, claiming the password-less user the
 * store made. Nothing issued to that registrant before the owner proves the address (a reset, the
 * claim link, the verification link) may see or spend the balance afterwards, and every ended
 * session (logout, a refresh token replayed, a reset) ends its access tokens at once on every
 * process: each check below is made on the very next request, with no retry. On the real PostgreSQL
 * the requests alternate between two server processes on one database; the embedded database has
 * one process.
 */

const sink = await startSmtpSink()
afterAll(() => sink.close())

let setup: { a: TestServer; b: TestServer; tenant: Tenant; database?: TestDatabase } | undefined
beforeAll(async () => {
  const env = {
    ...endUserEnv(sink),
    // One signing secret, so a token one process issued verifies on the other from the start.
    FIDELIS_JWT_SECRET: "session-takeover-signing-secret-0123456789",
    // The racing logins are counted as tries of one account from one address while they hash (the
    // throttle reserves before it checks): not this file's subject.
    FIDELIS_LOGIN_SLOW_AFTER: "1000",
    FIDELIS_LOGIN_LOCK_AFTER: "1000",
    FIDELIS_LOGIN_IP_SLOW_AFTER: "1000",
    FIDELIS_LOGIN_IP_LOCK_AFTER: "1000",
    FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: "10000"
  }
  if (realServerUrl() === undefined) {
    const a = await startServer({ env })
    setup = { a, b: a, tenant: await createTenant(a) }
    return
  }
  const database = await createSharedDatabase()
  const [a, b] = await Promise.all([0, 1].map(() => startServer({ databaseUrl: database.url, env })))
  setup = { a: a!, b: b!, tenant: await createTenant(a!), database }
}, 240_000)
afterAll(async () => {
  await setup?.a.stop()
  if (setup?.b !== setup?.a) await setup?.b.stop()
  await setup?.database?.drop()
})

const servers = () => [setup!.a, setup!.b] as const

const me = (server: TestServer, token: string) => call(server, "/api/v1/users/me", { headers: bearer(token) })

const post = (server: TestServer, path: string, body: unknown) => call(server, `/api/v1${path}`, { body })

/** A tRPC batch of bearer calls in one HTTP request, as its answers. */
const batch = async (server: TestServer, token: string, calls: ReadonlyArray<readonly [string, unknown]>) => {
  const paths = calls.map(([path]) => path).join(",")
  const res = await call(server, `/trpc/${paths}?batch=1`, {
    headers: bearer(token),
    body: Object.fromEntries(calls.map(([, input], i) => [String(i), input]))
  })
  return res.body as ReadonlyArray<{ result?: unknown; error?: { data: { httpStatus: number } } }>
}

/** Refused as a dead token: 401 with RFC 6750's invalid_token, whichever process answers. */
const expectDead = (res: ApiResponse) => {
  expect(res.status, JSON.stringify(res.body)).toBe(401)
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"')
}

/** The access token refused on every process, alone and in a batch, and its refresh token too. */
const expectSessionDead = async (session: AccountSession) => {
  for (const server of servers()) {
    expectDead(await me(server, session.access_token))
    const answers = await batch(server, session.access_token, [
      ["users.updateProfile", { nome: "Ainda aqui" }],
      ["users.updateProfile", { nome: "Ainda aqui" }]
    ])
    expect(answers.map((answer) => answer.error?.data.httpStatus)).toEqual([401, 401])
  }
  expect((await post(setup!.b, "/auth/refresh", { refresh_token: session.refresh_token })).status).toBe(401)
}

/** Uses the token on both processes, so each has it verified and cached: its death must evict it. */
const warm = async (token: string) => {
  for (const server of servers()) expect((await me(server, token)).status).toBe(200)
}

/** A store's client with `points`, made by the store before anyone registered the address. */
const storeCreated = async (email: string, points: number) => {
  const client = await createClient(setup!.a, setup!.tenant, { email, nome: "Vítor Vítima" })
  await creditPoints(setup!.a, setup!.tenant, client.id, points)
  const product = await createProduct(setup!.a, setup!.tenant, { name: "Cesta de Natal" })
  const reward = await createReward(setup!.a, setup!.tenant, { product_id: product.id, pontos_necessarios: 500 })
  return { client, reward }
}

const balanceOf = async (clientId: string) =>
  (await call(setup!.a, `/api/v1/public/points/${clientId}`, { key: setup!.tenant.key })).body.balance as number

describe("a balance the store created, and the address registered by someone else", () => {
  it("the owner's reset ends the registrant's tokens at once everywhere; the points stay out of reach", async () => {
    const email = uniqueEmail()
    const { client, reward } = await storeCreated(email, 1000)
    const attacker = await registerAccount(setup!.a, { email, password: "senha-do-atacante" })
    await warm(attacker.access_token)

    // Before any proof of the address the balance stays out of reach.
    expect((await me(setup!.b, attacker.access_token)).body.stats.total_points).toBe(0)
    const spend = await call(setup!.b, `/api/v1/rewards/${reward.id}/redeem`, {
      headers: bearer(attacker.access_token),
      body: {}
    })
    expect(spend.status).not.toBe(201)

    // The owner finds the address taken, and takes the account back with a reset.
    expectRefusal(
      await post(setup!.b, "/auth/register", { email, password: "senha-do-dono", nome: "Vítor" }),
      "EMAIL_TAKEN"
    )
    expect((await post(setup!.b, "/auth/request-password-reset", { email })).status).toBe(202)
    const { token } = await emailedToken(sink, email, "reset_password")
    expect((await post(setup!.b, "/auth/reset-password", { token, password: "senha-do-dono" })).status).toBe(200)

    await expectSessionDead(attacker)
    expect((await post(setup!.a, "/auth/login", { email, password: "senha-do-atacante" })).status).toBe(401)
    const redeemed = await call(setup!.a, `/api/v1/rewards/${reward.id}/redeem`, {
      headers: bearer(attacker.access_token),
      body: {}
    })
    expect(redeemed.status).toBe(401)
    expect(await balanceOf(client.id)).toBe(1000)

    const owner = await logIn(setup!.a, email, "senha-do-dono")
    expect((await me(setup!.b, owner.access_token)).body.stats.total_points).toBe(1000)
  })

  it("the verification email names the stores and offers a claim that ends the registrant's sessions", async () => {
    const email = uniqueEmail()
    const { client } = await storeCreated(email, 700)
    const attacker = await registerAccount(setup!.a, { email, password: "senha-do-atacante" })
    // A second session of the registrant's, refreshed once: every one of them must end.
    const second = await logIn(setup!.b, email, "senha-do-atacante")
    const refreshed = (await post(setup!.a, "/auth/refresh", { refresh_token: second.refresh_token })).body
    await warm(attacker.access_token)
    await warm(refreshed.access_token)

    const { text } = await emailedToken(sink, email, "verify_email")
    expect(text).toContain(setup!.tenant.empresa.name)
    expect(text).toContain("Não fui eu")
    const claim = /Código de recuperação para o aplicativo: (\S+)/.exec(text)?.[1]
    expect(claim).toBeDefined()
    expect((await post(setup!.b, "/auth/reset-password", { token: claim, password: "senha-do-dono" })).status).toBe(200)

    await expectSessionDead(attacker)
    await expectSessionDead({ ...second, ...refreshed })
    expect((await post(setup!.a, "/auth/login", { email, password: "senha-do-atacante" })).status).toBe(401)
    // The verification link of the registration is used up by the claim.
    const { token: verification } = await emailedToken(sink, email, "verify_email")
    expect((await post(setup!.a, "/auth/verify-email", { token: verification })).status).toBe(404)
    const owner = await logIn(setup!.b, email, "senha-do-dono")
    expect((await me(setup!.a, owner.access_token)).body.stats.total_points).toBe(700)
    expect(await balanceOf(client.id)).toBe(700)
  })

  it("a login that checked the old password while the reset ran does not outlive the reset", async () => {
    const email = uniqueEmail()
    await storeCreated(email, 200)
    await registerAccount(setup!.a, { email, password: "senha-do-atacante" })
    expect((await post(setup!.a, "/auth/request-password-reset", { email })).status).toBe(202)
    const { token } = await emailedToken(sink, email, "reset_password")
    // The registrant logs in over and over on both processes while the owner resets.
    const logins = Array.from({ length: 24 }, (_, i) =>
      post(servers()[i % 2]!, "/auth/login", { email, password: "senha-do-atacante" })
    )
    // One of them is in before the reset starts (so the check below is never empty); the rest race it.
    expect((await Promise.race(logins)).status).toBe(200)
    expect((await post(setup!.b, "/auth/reset-password", { token, password: "senha-do-dono" })).status).toBe(200)
    const sessions = (await Promise.all(logins)).filter((res) => res.status === 200).map((res) => res.body)
    expect(sessions.length).toBeGreaterThan(0)
    for (const session of sessions) await expectSessionDead(session)
  })

  it("no token issued before the verification link was used sees the balance afterwards", async () => {
    const email = uniqueEmail()
    await storeCreated(email, 300)
    const registrant = await registerAccount(setup!.a, { email })
    await warm(registrant.access_token)
    const { token } = await emailedToken(sink, email, "verify_email")
    expect((await post(setup!.b, "/auth/verify-email", { token })).status).toBe(200)

    await expectSessionDead(registrant)
    // A session opened after the proof sees the points.
    const fresh = await logIn(setup!.b, email)
    expect((await me(setup!.a, fresh.access_token)).body).toMatchObject({
      email_verified: true,
      stats: { total_points: 300 }
    })
  })
})

describe("access tokens die with their session", () => {
  it("logout ends the session's access token at once on every process", async () => {
    const session = await registerAccount(setup!.a)
    await warm(session.access_token)
    expect((await post(setup!.a, "/auth/logout", { refresh_token: session.refresh_token })).status).toBe(200)
    await expectSessionDead(session)
  })

  it("a replayed refresh token ends every access token of its session at once on every process", async () => {
    const session = await registerAccount(setup!.a)
    const rotated = (await post(setup!.b, "/auth/refresh", { refresh_token: session.refresh_token })).body
    expect(rotated.access_token).toEqual(expect.any(String))
    await warm(session.access_token)
    await warm(rotated.access_token)
    // The first refresh token again: as if stolen, so the whole session ends.
    expect((await post(setup!.b, "/auth/refresh", { refresh_token: session.refresh_token })).status).toBe(401)
    await expectSessionDead(session)
    await expectSessionDead({ ...session, ...rotated })
  })

  it("ending one session leaves the user's others alone", async () => {
    const session = await registerAccount(setup!.a)
    const other = await logIn(setup!.b, session.user.email)
    await warm(other.access_token)
    expect((await post(setup!.a, "/auth/logout", { refresh_token: session.refresh_token })).status).toBe(200)
    await expectSessionDead(session)
    for (const server of servers()) expect((await me(server, other.access_token)).status).toBe(200)
  })
})
