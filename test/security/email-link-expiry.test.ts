import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type ReceivedMail } from "../../packages/core/test/smtp-sink.js"
import {
  call,
  createSharedDatabase,
  createTenant,
  emailedToken,
  endUserEnv,
  realServerUrl,
  registerAccount,
  startServer,
  type Tenant,
  type TestServer
} from "../support/index.js"

/**
 * Security issue 28, item 6: an email's tracking and unsubscribe links expire (open and click 90
 * days after the message was sent, unsubscribe a year), and no link's token, nor an account page's,
 * is written to the access log. Time passes as in the redemption test: the messages are sent by one
 * server, then servers on the same database judge deadlines 100 and 366 days later
 * (FIDELIS_CLOCK_OFFSET_SECONDS, test-only).
 */

const ROUTES = "/api/v1/public/email"
const ALERTS = "gerente@padaria-expira.com.br"
const DAY = 86_400

const sink = await startSmtpSink()
afterAll(() => sink.close())

const admin = (on: TestServer, tenant: Tenant, path: string, body?: unknown) =>
  call(on, `/api/v1/internal/empresas/${tenant.empresa.id}${path}`, { key: on.adminKey, body })

const messageOf = async (on: TestServer, tenant: Tenant, id: string) =>
  (await admin(on, tenant, `/emails/${id}`)).body as {
    status: string
    opens: number
    clicks: number
    unsubscribed: boolean
  }

/** The message once it left the queue, and the mail the sink received for it. */
const deliveredMail = async (on: TestServer, tenant: Tenant, id: string): Promise<ReceivedMail> => {
  const deadline = Date.now() + 30_000
  while ((await messageOf(on, tenant, id)).status === "queued") {
    if (Date.now() > deadline) throw new Error(`message ${id} still queued`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect((await messageOf(on, tenant, id)).status).toBe("sent")
  return sink.messages.find((mail) => mail.parsed.messageId?.startsWith(`<${id}@`))!
}

/** The tracking links of a mail, as paths, and where each click link leads (read from its token). */
const linksIn = (mail: ReceivedMail) => {
  const paths = [...String(mail.parsed.html).matchAll(/(?:href|src)="([^"]+)"/g)]
    .map((m) => new URL(m[1]!.replace(/&amp;/g, "&")).pathname)
    .filter((path) => path.startsWith(`${ROUTES}/`))
  const of = (route: string) => paths.filter((path) => path.startsWith(`${ROUTES}/${route}/`))
  const clicks = of("click").map((path) => {
    const payload = path.split("/").at(-1)!.split(".")[1]!
    return { path, target: (JSON.parse(Buffer.from(payload, "base64url").toString()) as { u: string }).u }
  })
  return { open: of("open")[0]!, unsubscribe: of("unsubscribe")[0]!, clicks }
}

const tokenOf = (path: string) =>
  path
    .split("/")
    .at(-1)!
    .replace(/\.gif$/, "")

const raw = (on: TestServer, path: string, init: RequestInit = {}) =>
  fetch(`${on.url}${path}`, { redirect: "manual", ...init })

const oneClick = {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: "List-Unsubscribe=One-Click"
}

/** What the access log wrote: the `path` of each request line. */
const loggedPaths = (on: TestServer) =>
  on
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { message?: string; path?: string })
    .filter((line) => line.message === "request")
    .map((line) => line.path)

const PLACEHOLDERS = [`${ROUTES}/open/:token.gif`, `${ROUTES}/click/:token`, `${ROUTES}/unsubscribe/:token`]

/** No secret in the server's output; its email routes' lines name the token instead. */
const expectNoSecretLogged = async (on: TestServer, secrets: ReadonlyArray<string>) => {
  // The log goes out in batches, at most 25 ms after a line.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const output = on.output()
  for (const secret of secrets) expect(output, "a token is in the server's output").not.toContain(secret)
  const emailLines = loggedPaths(on).filter((path) => path?.startsWith(ROUTES))
  expect(emailLines.length).toBeGreaterThan(0)
  for (const path of emailLines) expect(PLACEHOLDERS).toContain(path)
}

const THREE_STARTS_MS = 360_000

describe("email links expire, and their tokens stay out of the access log", () => {
  it(
    "fresh links work; after 90 days opens and clicks count no more, an outside target is refused; after a " +
      "year the unsubscribe link shows how else to unsubscribe",
    { timeout: THREE_STARTS_MS },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "fidelis-link-expiry-"))
      const shared = realServerUrl() === undefined ? undefined : await createSharedDatabase()
      const place = shared === undefined ? { embedded: true } : { databaseUrl: shared.url }
      const env = {
        ...endUserEnv(sink),
        FIDELIS_ALERT_GRACE_SECONDS: "2",
        ...(shared === undefined ? { FIDELIS_DATA_DIR: dir } : {})
      }
      const later = (days: number) =>
        startServer({ ...place, env: { ...env, FIDELIS_CLOCK_OFFSET_SECONDS: String(days * DAY) } })
      try {
        // ---- today: the links work, and the log names no token -----------------------------
        const today = await startServer({ ...place, env })
        const sent = await (async () => {
          try {
            const tenant = await createTenant(today)
            const patched = await call(today, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
              method: "PATCH",
              key: today.adminKey,
              body: { settings: { alert_email: ALERTS } }
            })
            expect(patched.status).toBe(200)

            // A test message (its click leads to the survey page, on this server) ...
            const queued = await admin(today, tenant, "/emails/test", {})
            expect(queued.status).toBe(202)
            const test = {
              id: queued.body.id as string,
              links: linksIn(await deliveredMail(today, tenant, queued.body.id))
            }

            // ... and a low-score alert whose contact left a mobile: a WhatsApp link, outside.
            const slug = tenant.empresa.id_name
            const active = await call(today, `/api/v1/public/quests/${slug}/active`)
            const answered = await call(today, `/api/v1/public/quests/${slug}/${active.body.quest_id}/responses`, {
              body: { response: { csat: 1, nps: 2, comment: "Pão frio" } }
            })
            expect(answered.status).toBe(201)
            const contact = await call(today, `/api/v1/public/quests/${slug}/${answered.body.response_id}/contact`, {
              method: "PATCH",
              body: { client_name: "Rita", client_phone: "(21) 99876-5432" }
            })
            expect(contact.status).toBe(200)
            const listed = await admin(today, tenant, "/emails?per_page=100")
            const alertId = (listed.body.data as Array<{ id: string; kind: string }>).find(
              (m) => m.kind === "low_score_alert"
            )!.id
            const alert = { id: alertId, links: linksIn(await deliveredMail(today, tenant, alertId)) }
            const whatsapp = alert.links.clicks.find((click) => click.target.startsWith("https://wa.me/"))!
            expect(whatsapp).toBeDefined()

            const survey = test.links.clicks[0]!
            expect(survey.target).toBe(`${today.url}/s/${slug}`)
            const pixel = await raw(today, test.links.open)
            expect([pixel.status, pixel.headers.get("content-type")]).toEqual([200, "image/gif"])
            expect((await raw(today, survey.path)).headers.get("location")).toBe(survey.target)
            expect((await raw(today, whatsapp.path)).headers.get("location")).toBe(whatsapp.target)
            const page = await raw(today, test.links.unsubscribe)
            expect(page.status).toBe(200)
            expect(await page.text()).toContain('name="List-Unsubscribe" value="One-Click"')
            expect(await messageOf(today, tenant, test.id)).toMatchObject({ opens: 1, clicks: 1, unsubscribed: false })

            // An account's verification and reset links carry their token in the query string.
            const account = await registerAccount(today)
            const { token: accountToken } = await emailedToken(sink, account.user.email, "verify_email")
            for (const pageOf of ["verify-email", "reset-password"]) {
              expect((await raw(today, `/account/${pageOf}?token=${accountToken}`)).status).toBe(200)
            }

            const secrets = [
              ...[test, alert].flatMap(({ links }) => [
                tokenOf(links.open),
                tokenOf(links.unsubscribe),
                ...links.clicks.map((click) => tokenOf(click.path))
              ]),
              accountToken
            ]
            await expectNoSecretLogged(today, secrets)
            return { tenant, test, alert, survey, whatsapp, secrets }
          } finally {
            await today.stop()
          }
        })()
        const { tenant, test, alert, survey, whatsapp, secrets } = sent

        // ---- 100 days later: tracking has ended; unsubscribing still works -------------------
        const season = await later(100)
        try {
          const pixel = await raw(season, test.links.open)
          expect([pixel.status, pixel.headers.get("content-type")]).toEqual([200, "image/gif"])
          // A page of this server is still reached; nothing is counted.
          const followed = await raw(season, survey.path)
          expect([followed.status, followed.headers.get("location")]).toEqual([302, survey.target])
          // Outside, no more: a page says the link has expired, and shows neither the target nor the phone.
          const outside = await raw(season, whatsapp.path)
          expect(outside.status).toBe(410)
          expect(outside.headers.get("location")).toBeNull()
          const expired = await outside.text()
          expect(expired).toContain("Este link expirou")
          expect(expired).not.toContain("wa.me")
          expect(expired).not.toContain("99876")
          expect(await messageOf(season, tenant, test.id)).toMatchObject({ opens: 1, clicks: 1 })
          expect((await messageOf(season, tenant, alert.id)).clicks).toBe(1)
          // A forged token is still unknown, not "expired".
          expect((await raw(season, `${ROUTES}/click/eyJhbGciOiJIUzI1NiJ9.e30.forged`)).status).toBe(404)

          const ask = await raw(season, test.links.unsubscribe)
          expect(ask.status).toBe(200)
          expect(await ask.text()).toContain('name="List-Unsubscribe" value="One-Click"')
          await expectNoSecretLogged(season, secrets)
        } finally {
          await season.stop()
        }

        // ---- 366 days later: the unsubscribe link has expired too -----------------------------
        const year = await later(366)
        try {
          for (const init of [{ method: "GET" }, oneClick]) {
            const res = await raw(year, test.links.unsubscribe, init)
            expect(res.status, `${init.method} of an expired unsubscribe link`).toBe(410)
            expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8")
            const html = await res.text()
            expect(html).toContain("Este link expirou")
            // How to unsubscribe otherwise: a newer message's link, which every message carries.
            expect(html).toContain("Não quero mais receber estes e-mails")
            expect(html).not.toContain("@padaria-expira.com.br")
          }
          expect((await messageOf(year, tenant, test.id)).unsubscribed).toBe(false)
          // A newer message carries a fresh link, which works.
          const queued = await admin(year, tenant, "/emails/test", {})
          const fresh = linksIn(await deliveredMail(year, tenant, queued.body.id))
          expect((await raw(year, fresh.unsubscribe, oneClick)).status).toBe(200)
          expect((await messageOf(year, tenant, queued.body.id)).unsubscribed).toBe(true)
          await expectNoSecretLogged(year, [...secrets, tokenOf(fresh.unsubscribe), tokenOf(fresh.open)])
        } finally {
          await year.stop()
        }
      } finally {
        await shared?.drop()
        await rm(dir, { recursive: true, force: true })
      }
    }
  )
})
