import { createHash } from "node:crypto"
import { decodeJwt, SignJWT } from "jose"
import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type SmtpSink } from "../packages/core/test/smtp-sink.js"
import {
  bearer,
  call,
  createClient,
  emailedToken as emailedTokenOf,
  problem,
  registerAccount,
  uniqueEmail,
  useServer,
  useTenant,
  type ApiResponse
} from "./support/index.js"

const JWT_SECRET = "test-jwt-secret-0123456789abcdef0123456789"
const KID = `cfg-${createHash("sha256").update(JWT_SECRET).digest("hex").slice(0, 16)}`
const DAY = 24 * 60 * 60

/** A real SMTP server in this process: the account emails arrive here. */
const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({
  env: {
    FIDELIS_SMTP_URL: sink.url,
    FIDELIS_JWT_SECRET: JWT_SECRET,
    FIDELIS_PASSWORD_COST: "10",
    FIDELIS_LOGIN_SLOW_AFTER: "3",
    FIDELIS_LOGIN_LOCK_AFTER: "5",
    FIDELIS_LOGIN_IP_SLOW_AFTER: "1000",
    FIDELIS_LOGIN_IP_LOCK_AFTER: "1000"
  }
})
const tenant = useTenant(server)

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(server, `/api/v1${path}`, { body, headers })

const register = (body: Record<string, unknown> = {}) => registerAccount(server, body)

const me = (token: string) => call(server, "/api/v1/users/me", { headers: bearer(token) })

/** The session an access token names (its `sid`). */
const sessionOf = (token: string): string => decodeJwt(token)["sid"] as string

/** A token signed with the server's key (or another), as an attacker or a clock would make it. */
const signed = (
  sub: string,
  options: { alg?: string; kid?: string; secret?: string; exp?: number; sid?: string } = {}
) =>
  new SignJWT(options.sid === undefined ? {} : { sid: options.sid })
    .setProtectedHeader({ alg: options.alg ?? "HS256", kid: options.kid ?? KID })
    .setIssuer("fidelis")
    .setAudience("fidelis-end-user")
    .setSubject(sub)
    .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(options.secret ?? JWT_SECRET))

const emailedToken = (to: string, kind: "verify_email" | "reset_password") => emailedTokenOf(sink, to, kind)

const expectInvalidToken = (res: ApiResponse) => {
  expect(res.status).toBe(401)
  expect(res.body.code).toBe("UNAUTHENTICATED")
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"')
}

describe("register and login", () => {
  it("registers, returns the spec's body and a token that reads /users/me", async () => {
    const email = uniqueEmail()
    const res = await post("/auth/register", {
      email,
      password: "segredo123",
      nome: "Ana Souza",
      telefone: "+5511987654321",
      cpf: "529.982.247-25"
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      message: expect.any(String),
      user: { id: expect.any(String), email, nome: "Ana Souza", telefone: "+5511987654321" },
      token_type: "bearer",
      expires_in: 3600
    })
    const profile = await me(res.body.access_token)
    expect(profile.status).toBe(200)
    expect(profile.body).toMatchObject({
      email,
      cpf: "52998224725",
      email_verified: false,
      referral_code: expect.any(String),
      stats: { total_points: 0, total_stores: 0, total_referrals: 0, total_rewards_redeemed: 0 }
    })
    expect(profile.headers.get("x-ratelimit-limit")).not.toBeNull()
    expect(profile.headers.get("x-ratelimit-remaining")).not.toBeNull()
  })

  it("refuses a second account with the same email, whatever its case", async () => {
    const { user } = await register()
    const res = await post("/auth/register", { email: user.email.toUpperCase(), password: "outrasenha", nome: "B" })
    expect(res.status).toBe(409)
    expect(res.body.detail.code).toBe("EMAIL_TAKEN")
  })

  it("answers 422 for each invalid field, in the spec's shape", async () => {
    const res = await post("/auth/register", {
      email: "not-an-email",
      password: "short",
      nome: "",
      telefone: "123",
      cpf: "11111111111"
    })
    expect(res.status).toBe(422)
    const fields = (res.body.detail as Array<{ loc: string[]; msg: string }>).map((item) => item.loc.join("."))
    expect(fields.toSorted()).toEqual(["body.cpf", "body.email", "body.nome", "body.password", "body.telefone"])
    const password = res.body.detail.find((item: { loc: string[] }) => item.loc[1] === "password")
    expect(password.msg).toMatch(/8 to 128 characters/)
  })

  it("refuses an unknown referral code and counts a known one for its owner", async () => {
    const unknown = await post("/auth/register", {
      email: uniqueEmail(),
      password: "segredo123",
      nome: "C",
      referral_code: "NOPE"
    })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail[0].loc).toEqual(["body", "referral_code"])
    const referrer = await register()
    const code = (await me(referrer.access_token)).body.referral_code
    await register({ referral_code: code })
    expect((await me(referrer.access_token)).body.stats.total_referrals).toBe(1)
  })

  it("logs in with one answer for a wrong password and an unknown email", async () => {
    const { user } = await register()
    const ok = await post("/auth/login", { email: user.email, password: "segredo123" })
    expect(ok.status).toBe(200)
    expect(ok.body.user.id).toBe(user.id)
    const wrong = await post("/auth/login", { email: user.email, password: "errada123" })
    const unknown = await post("/auth/login", { email: uniqueEmail(), password: "errada123" })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual(problem("Invalid email or password", "UNAUTHENTICATED"))
    expect(unknown.body.detail).toBe(wrong.body.detail)
  })

  it("slows repeated failures down, then locks the account", async () => {
    const { user } = await register()
    const login = (password: string) => post("/auth/login", { email: user.email, password })
    for (let i = 0; i < 3; i++) expect((await login("errada123")).status).toBe(401)
    const slowed = await login("segredo123")
    expect(slowed.status).toBe(429)
    const wait = Number(slowed.headers.get("retry-after"))
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(2)
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100))
    expect((await login("errada123")).status).toBe(401)
    const again = await login("errada123")
    expect(again.status).toBe(429)
    await new Promise((resolve) => setTimeout(resolve, Number(again.headers.get("retry-after")) * 1000 + 100))
    expect((await login("errada123")).status).toBe(401)
    const locked = await login("segredo123")
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60)
  }, 30_000)
})

describe("bearer authentication", () => {
  it("refuses a missing token with a Bearer challenge", async () => {
    const res = await call(server, "/api/v1/users/me")
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/)
    expect(res.body.detail).toMatch(/Authorization: Bearer/)
  })

  it("refuses expired, forged, other-algorithm, unsigned, unknown-kid and session-less tokens", async () => {
    const { user, access_token } = await register()
    const sub = user.id
    const sid = sessionOf(access_token)
    expect((await me(await signed(sub, { sid }))).status).toBe(200)
    // Issued before access tokens named their session: refused, and the refresh token gives one that does.
    const sessionless = await me(await signed(sub))
    expectInvalidToken(sessionless)
    expect(sessionless.body.detail).toMatch(/refresh it/)
    // Another user's session is not this user's.
    expectInvalidToken(await me(await signed(sub, { sid: sessionOf((await register()).access_token) })))
    const expired = await me(await signed(sub, { exp: Math.floor(Date.now() / 1000) - 10 }))
    expectInvalidToken(expired)
    expect(expired.body.detail).toMatch(/expired/)
    expectInvalidToken(await me(await signed(sub, { secret: "another-secret-0123456789abcdef0123456789" })))
    expectInvalidToken(await me(await signed(sub, { alg: "HS512" })))
    expectInvalidToken(await me(await signed(sub, { kid: "someone-else" })))
    const [, payload] = (await signed(sub)).split(".")
    const none = `${Buffer.from(JSON.stringify({ alg: "none", kid: KID })).toString("base64url")}.${payload}.`
    expectInvalidToken(await me(none))
  })
})

describe("refresh tokens", () => {
  it("follows spec 5.7: an expired access token, a refresh, the retry succeeds", async () => {
    const session = await register()
    const expired = await signed(session.user.id, { exp: Math.floor(Date.now() / 1000) - 1 })
    expect((await me(expired)).status).toBe(401)
    const refreshed = await post("/auth/refresh", { refresh_token: session.refresh_token })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body).toMatchObject({ token_type: "bearer", expires_in: 3600 })
    expect(refreshed.body.refresh_token).not.toBe(session.refresh_token)
    expect((await me(refreshed.body.access_token)).status).toBe(200)
  })

  it("revokes the family when a rotated token is presented again", async () => {
    const session = await register()
    const first = await post("/auth/refresh", { refresh_token: session.refresh_token })
    expect(first.status).toBe(200)
    const replay = await post("/auth/refresh", { refresh_token: session.refresh_token })
    expect(replay.status).toBe(401)
    const newest = await post("/auth/refresh", { refresh_token: first.body.refresh_token })
    expect(newest.status).toBe(401)
  })

  it("lets at most one of 20 parallel refreshes succeed, and then revokes the family", async () => {
    const session = await register()
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post("/auth/refresh", { refresh_token: session.refresh_token }))
    )
    const won = results.filter((res) => res.status === 200)
    expect(won.length).toBeLessThanOrEqual(1)
    expect(results.filter((res) => res.status === 401).length).toBe(20 - won.length)
    for (const winner of won) {
      expect((await post("/auth/refresh", { refresh_token: winner.body.refresh_token })).status).toBe(401)
    }
  })

  it("logout ends the session", async () => {
    const session = await register()
    expect((await post("/auth/logout", { refresh_token: session.refresh_token })).status).toBe(200)
    expect((await post("/auth/refresh", { refresh_token: session.refresh_token })).status).toBe(401)
  })

  it("gives a 30-day refresh token with remember_me and a 7-day one without, kept across rotations", async () => {
    const { user } = await register()
    const shortLived = await post("/auth/login", { email: user.email, password: "segredo123" })
    const longLived = await post("/auth/login", { email: user.email, password: "segredo123", remember_me: true })
    expect(shortLived.body.refresh_expires_in).toBe(7 * DAY)
    expect(longLived.body.refresh_expires_in).toBe(30 * DAY)
    const rotated = await post("/auth/refresh", { refresh_token: longLived.body.refresh_token })
    expect(rotated.body.refresh_expires_in).toBe(30 * DAY)
  })
})

describe("email verification, password reset and account linking", () => {
  it("shows a client's points only after the email is verified, with a link that works once", async () => {
    const email = uniqueEmail()
    const client = await createClient(server, tenant, { email })
    const credit = await call(server, "/api/v1/public/points/credit", {
      key: tenant.key,
      body: { client_id: client.id, points: 40 }
    })
    expect(credit.status, JSON.stringify(credit.body)).toBe(200)
    const session = await register({ email })
    expect((await me(session.access_token)).body.stats.total_points).toBe(0)
    const { token, text } = await emailedToken(email, "verify_email")
    expect(text).toContain("/account/verify-email?token=")
    expect((await post("/auth/verify-email", { token })).status).toBe(200)
    // The proof ended the session opened before it: the app logs in again, and the points show.
    expectInvalidToken(await me(session.access_token))
    const again = await post("/auth/login", { email, password: "segredo123" })
    const after = await me(again.body.access_token)
    expect(after.body).toMatchObject({ email_verified: true, stats: { total_points: 40, total_stores: 1 } })
    expect((await post("/auth/verify-email", { token })).status).toBe(404)
  })

  it("never links by CPF alone", async () => {
    const client = await createClient(server, tenant, { email: uniqueEmail(), cpf: "39053344705" })
    await call(server, "/api/v1/public/points/credit", { key: tenant.key, body: { client_id: client.id, points: 9 } })
    const email = uniqueEmail()
    await register({ email, cpf: "39053344705" })
    const { token } = await emailedToken(email, "verify_email")
    expect((await post("/auth/verify-email", { token })).status).toBe(200)
    const again = await post("/auth/login", { email, password: "segredo123" })
    expect((await me(again.body.access_token)).body.stats.total_points).toBe(0)
  })

  it("resets a password through the emailed link once, ending every session", async () => {
    const session = await register()
    const email = session.user.email
    const unknown = await post("/auth/request-password-reset", { email: uniqueEmail() })
    const known = await post("/auth/request-password-reset", { email })
    expect(known.status).toBe(202)
    expect(unknown.status).toBe(202)
    expect(unknown.body).toEqual(known.body)
    const { token } = await emailedToken(email, "reset_password")
    expect((await post("/auth/reset-password", { token, password: "nova-senha-1" })).status).toBe(200)
    expect((await post("/auth/reset-password", { token, password: "outra-senha-2" })).status).toBe(404)
    expect((await post("/auth/refresh", { refresh_token: session.refresh_token })).status).toBe(401)
    expect((await post("/auth/login", { email, password: "segredo123" })).status).toBe(401)
    expect((await post("/auth/login", { email, password: "nova-senha-1" })).status).toBe(200)
  })
})

describe("profile", () => {
  it("updates name, phone and CPF, and answers 422 per invalid field", async () => {
    const session = await register()
    const put = (body: unknown) =>
      call(server, "/api/v1/users/profile", { method: "PUT", body, headers: bearer(session.access_token) })
    const ok = await put({ nome: "Ana Lima", telefone: "(11) 98765-4321", cpf: "52998224725" })
    expect(ok.status).toBe(200)
    expect(ok.body.user).toMatchObject({ nome: "Ana Lima", telefone: "+5511987654321" })
    const bad = await put({ telefone: "12", cpf: "123" })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((item: { loc: string[] }) => item.loc.join(".")).toSorted()).toEqual([
      "body.cpf",
      "body.telefone"
    ])
  })
})

describe("the end-user API's surface", () => {
  it("serves its own OpenAPI document with the bearer scheme, and a reference page", async () => {
    const doc = await call(server, "/api/v1/openapi.json")
    expect(doc.status).toBe(200)
    expect(doc.body.components.securitySchemes.bearerAuth).toMatchObject({ scheme: "bearer", bearerFormat: "JWT" })
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/auth/register", "/users/me"]))
    expect(doc.body.paths["/users/me"].get.security).toEqual([{ bearerAuth: [] }])
    expect(doc.body.paths["/auth/login"].post.security).toEqual([])
    expect(Object.keys(doc.body.paths).some((path: string) => path.startsWith("/clients"))).toBe(false)
    const page = await fetch(`${server.url}/docs/end-user`)
    expect(await page.text()).toContain("/api/v1/openapi.json")
  })

  it("keeps the company API's routing, 404 suggestions and 405s", async () => {
    expect((await call(server, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
    const typo = await call(server, "/api/v1/public/clientz", { key: tenant.key })
    expect(typo.status).toBe(404)
    expect(typo.body.detail).toMatch(/Did you mean GET \/api\/v1\/public\/clients/)
    const method = await call(server, "/api/v1/users/me", { method: "DELETE" })
    expect(method.status).toBe(405)
    expect(method.headers.get("allow")).toBe("GET")
    const near = await call(server, "/api/v1/auth/logn", { body: {} })
    expect(near.body.detail).toMatch(/Did you mean POST \/api\/v1\/auth\/login/)
  })
})
