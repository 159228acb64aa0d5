import { afterAll, expect } from "vitest"
import { startSmtpSink, type SmtpSink } from "../../packages/core/test/smtp-sink.js"
import { creditPoints } from "./fixtures.js"
import { useServer, useTenant } from "./hooks.js"
import { call, createClient, type Tenant } from "./http.js"
import type { TestServer } from "./server.js"

let counter = 0

/** An address no other test of the run uses. */
export const uniqueEmail = () => `pessoa${Date.now().toString(36)}${counter++}@example.com`

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export interface AccountSession {
  readonly user: { readonly id: string; readonly email: string }
  readonly access_token: string
  readonly refresh_token: string
}

/** Registers an account through the end-user API (password `segredo123` unless `body` says otherwise). */
export const registerAccount = async (
  server: TestServer,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {}
): Promise<AccountSession> => {
  const res = await call(server, "/api/v1/auth/register", {
    body: { email: uniqueEmail(), password: "segredo123", nome: "Ana", ...body },
    headers
  })
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as AccountSession
}

/**
 * Settings for a server that tests reach as many client addresses: cheap passwords, a hashing
 * queue no burst of them fills, and the loopback trusted as a proxy, so `fromAddress` names the
 * caller's address.
 */
export const manyAddressesEnv = {
  FIDELIS_PASSWORD_COST: "10",
  FIDELIS_PASSWORD_HASH_QUEUE: "1000",
  FIDELIS_TRUSTED_PROXIES: "127.0.0.1"
} as const

/** The headers that make a request come from `address` on a `manyAddressesEnv` server. */
export const fromAddress = (address: string) => ({ "x-forwarded-for": address })

/** A registered user as most tests need one: who, and the access token to call as them. */
export interface EndUser {
  readonly id: string
  readonly email: string
  readonly token: string
}

export const registerUser = async (server: TestServer, body: Record<string, unknown> = {}): Promise<EndUser> => {
  const session = await registerAccount(server, body)
  return { id: session.user.id, email: session.user.email, token: session.access_token }
}

/** The token of the latest account email of `kind` the sink received for `to`. */
export const emailedToken = async (sink: SmtpSink, to: string, kind: "verify_email" | "reset_password") => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const mail = sink.messages
      .filter((m) => m.envelope.to.includes(to))
      .filter((m) => m.parsed.headers.get("x-fidelis-message-kind") === kind)
      .at(-1)
    const token = /Código para o aplicativo: (\S+)/.exec(String(mail?.parsed.text ?? ""))?.[1]
    if (token !== undefined) return { token, text: String(mail!.parsed.text) }
    if (Date.now() > deadline) throw new Error(`no ${kind} email to ${to}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Logs in through the end-user API (password `segredo123` unless told). */
export const logIn = async (server: TestServer, email: string, password = "segredo123"): Promise<AccountSession> => {
  const res = await call(server, "/api/v1/auth/login", { body: { email, password } })
  if (res.status !== 200) throw new Error(`login: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as AccountSession
}

/**
 * Verifies the account's email through the link the server mailed to it. The proof ends every
 * session opened before it, so this logs in again, as the app does, and returns the new session.
 */
export const verifyEmail = async (server: TestServer, sink: SmtpSink, email: string, password?: string) => {
  const { token } = await emailedToken(sink, email, "verify_email")
  const res = await call(server, "/api/v1/auth/verify-email", { body: { token } })
  if (res.status !== 200) throw new Error(`verify-email: ${res.status} ${JSON.stringify(res.body)}`)
  return logIn(server, email, password)
}

/** A registered account whose email is verified, so its stores' client records (balances) show. */
export const verifiedUser = async (server: TestServer, sink: SmtpSink): Promise<AccountSession> => {
  const account = await registerAccount(server)
  return verifyEmail(server, sink, account.user.email)
}

export interface Member extends AccountSession {
  readonly clientId: string
  readonly auth: { readonly authorization: string }
}

/** A verified user who is a client of the tenant with `points` credited. */
export const memberOf = async (server: TestServer, sink: SmtpSink, tenant: Tenant, points: number): Promise<Member> => {
  const account = await verifiedUser(server, sink)
  const client = await createClient(server, tenant, { email: account.user.email })
  if (points > 0) await creditPoints(server, tenant, client.id, points)
  return { ...account, clientId: client.id, auth: bearer(account.access_token) }
}

/**
 * A server's settings for end-user tests: emails to `sink`, cheap passwords, budgets for storms
 * (the hashing queue's too: storms register accounts in parallel, on however few cores).
 */
export const endUserEnv = (sink: SmtpSink) => ({
  FIDELIS_SMTP_URL: sink.url,
  FIDELIS_PASSWORD_COST: "10",
  FIDELIS_PASSWORD_HASH_QUEUE: "1000",
  FIDELIS_USER_RATE_LIMIT_PER_MINUTE: "10000",
  FIDELIS_RATE_LIMIT_PER_MINUTE: "10000"
})

/**
 * A server whose account emails reach an in-process SMTP sink, with one tenant and budgets large
 * enough for storms of parallel requests (plus the caller's `env`); `member` makes its verified clients,
 * `sink` holds the emails.
 */
export const useEndUserServer = async (env: Record<string, string> = {}) => {
  const sink = await startSmtpSink()
  afterAll(() => sink.close())
  const server = useServer({ env: { ...endUserEnv(sink), ...env } })
  const tenant = useTenant(server)
  return { server, sink, tenant, member: (points: number) => memberOf(server, sink, tenant, points) }
}

/** A 409 with its stable code, in the body's `detail` and beside it. */
export const expectRefusal = (res: { status: number; body: any }, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(409)
  expect(res.body.detail.code).toBe(code)
  expect(res.body.code).toBe(code)
  expect(res.body.request_id).toEqual(expect.any(String))
}
