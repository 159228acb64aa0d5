import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type ReceivedMail, type SmtpSink } from "../packages/core/test/smtp-sink.js"
import {
  call,
  createRealDatabase,
  createSharedDatabase,
  createTenant,
  realServerUrl,
  startServer,
  useServer,
  type Tenant,
  type TestServer
} from "./support/index.js"

const ALERTS = "gerente@padariasol.com.br"
const ROUTES = "/api/v1/public/email"

/** A real SMTP server in this process; the server under test sends to it. */
const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({
  env: {
    FIDELIS_SMTP_URL: sink.url,
    FIDELIS_JOB_MAX_ATTEMPTS: "3",
    FIDELIS_JOB_BACKOFF_BASE_SECONDS: "0.1",
    FIDELIS_JOB_BACKOFF_MAX_SECONDS: "0.3"
  }
})

/** A tenant whose low-score alerts go to `alertEmail`. */
const tenantWithAlerts = async (on: TestServer, alertEmail: string | null = ALERTS) => {
  const tenant = await createTenant(on)
  const res = await call(on, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
    method: "PATCH",
    key: on.adminKey,
    body: { settings: { alert_email: alertEmail } }
  })
  expect(res.status).toBe(200)
  return tenant
}

const sendTest = async (on: TestServer, tenant: Tenant, body: Record<string, unknown> = {}) => {
  const res = await call(on, `/api/v1/internal/empresas/${tenant.empresa.id}/emails/test`, {
    key: on.adminKey,
    body
  })
  expect(res.status, JSON.stringify(res.body)).toBe(202)
  return res.body as { id: string; status: string; to: string }
}

const messageOf = (on: TestServer, tenant: Tenant, id: string) =>
  call(on, `/api/v1/internal/empresas/${tenant.empresa.id}/emails/${id}`, { key: on.adminKey })

/** The message once it left the queue: sent, suppressed or dead. */
const settled = async (on: TestServer, tenant: Tenant, id: string) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const res = await messageOf(on, tenant, id)
    expect(res.status).toBe(200)
    if (res.body.status !== "queued") return res.body
    if (Date.now() > deadline) throw new Error(`message ${id} still queued: ${JSON.stringify(res.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const received = (from: SmtpSink, id: string): ReceivedMail | undefined =>
  from.messages.find((mail) => mail.parsed.messageId?.startsWith(`<${id}@`))

/** The links of a received message, as paths under the server's public base. */
const linksIn = (mail: ReceivedMail) => {
  const urls = [...String(mail.parsed.html).matchAll(/(?:href|src)="([^"]+)"/g)].map((m) =>
    m[1]!.replace(/&amp;/g, "&")
  )
  const path = (route: string) => {
    const url = urls.find((candidate) => candidate.includes(`${ROUTES}/${route}/`))
    if (url === undefined) throw new Error(`no ${route} link in ${urls.join(" ")}`)
    return new URL(url).pathname
  }
  return { open: path("open"), click: path("click"), unsubscribe: path("unsubscribe") }
}

/** A sent test message and its links. */
const delivered = async (tenant: Tenant, body: Record<string, unknown> = {}) => {
  const queued = await sendTest(server, tenant, body)
  const message = await settled(server, tenant, queued.id)
  expect(message.status).toBe("sent")
  const mail = received(sink, queued.id)!
  return { id: queued.id, mail, links: linksIn(mail) }
}

/** A request that must not follow redirects (fetch would). */
const raw = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: "manual", ...init })

/** The same token with its payload replaced, the signature left as it was. */
const withPayload = (token: string, change: (claims: Record<string, unknown>) => Record<string, unknown>) => {
  const [header, payload, signature] = token.split(".") as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
  return `${header}.${Buffer.from(JSON.stringify(change(claims))).toString("base64url")}.${signature}`
}

const tokenOf = (path: string) =>
  path
    .split("/")
    .at(-1)!
    .replace(/\.gif$/, "")

describe("email through the outbox (docs/architecture.md, Surveys and email)", () => {
  it("a test message reaches the SMTP server with its tracking links and one-click unsubscribe headers", async () => {
    const tenant = await tenantWithAlerts(server)
    const queued = await sendTest(server, tenant)
    expect(queued).toMatchObject({ status: "queued", to: ALERTS })
    const message = await settled(server, tenant, queued.id)
    expect(message).toMatchObject({ status: "sent", attempts: 1, subject: expect.stringContaining("Teste de e-mail") })

    const mail = received(sink, queued.id)!
    expect(mail.envelope.to).toEqual([ALERTS])
    expect(mail.parsed.messageId).toBe(`<${queued.id}@127.0.0.1>`)
    const header = (name: string) =>
      mail.parsed.headerLines
        .find((line) => line.key === name)
        ?.line.replace(/\r?\n\s+/g, " ")
        .replace(/^[^:]+:\s*/, "")
    const { unsubscribe, open, click } = linksIn(mail)
    expect(header("list-unsubscribe")).toBe(`<${server.url}${unsubscribe}>`)
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click")
    expect(open).toMatch(/^\/api\/v1\/public\/email\/open\/[\w-]+\.[\w-]+\.[\w-]+\.gif$/)
    expect(click).toMatch(/^\/api\/v1\/public\/email\/click\/[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(mail.parsed.text).toContain(`${server.url}${click}`)

    // Another address on request; without one, the empresa must have an alert address.
    const other = await sendTest(server, tenant, { to: "dono@padariasol.com.br" })
    expect(other.to).toBe("dono@padariasol.com.br")
    const silent = await tenantWithAlerts(server, null)
    const refused = await call(server, `/api/v1/internal/empresas/${silent.empresa.id}/emails/test`, {
      key: server.adminKey,
      body: {}
    })
    expect(refused.status).toBe(409)
    expect(refused.body.detail.code).toBe("ALERT_EMAIL_NOT_SET")
    const bad = await call(server, `/api/v1/internal/empresas/${silent.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings: { alert_email: "not an address" } }
    })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(["body", "settings", "alert_email"])
  })

  it("the open pixel is a GIF that counts the open; forged or altered tokens are 404", async () => {
    const tenant = await tenantWithAlerts(server)
    const { id, links } = await delivered(tenant)
    const res = await raw(links.open)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("image/gif")
    expect(res.headers.get("cache-control")).toBe("no-store")
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.subarray(0, 6).toString()).toBe("GIF89a")
    expect((await messageOf(server, tenant, id)).body.opens).toBe(1)

    const token = tokenOf(links.open)
    const flipped = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.at(-1)}`
    for (const forged of [
      "eyJhbGciOiJIUzI1NiJ9.e30.forged",
      flipped,
      withPayload(token, (claims) => ({ ...claims, m: crypto.randomUUID() })),
      tokenOf(links.click)
    ]) {
      const refused = await raw(`${ROUTES}/open/${forged}.gif`)
      expect(refused.status, forged).toBe(404)
      expect(await refused.json()).toMatchObject({ detail: expect.any(String), code: "NOT_FOUND" })
    }
    expect((await messageOf(server, tenant, id)).body.opens).toBe(1)
  })

  it("a click redirects only to the URL signed in its token: no open redirect", async () => {
    const tenant = await tenantWithAlerts(server)
    const { id, links } = await delivered(tenant)
    const followed = await raw(links.click)
    expect(followed.status).toBe(302)
    expect(followed.headers.get("location")).toBe(`${server.url}/s/${tenant.empresa.id_name}`)
    expect(followed.headers.get("referrer-policy")).toBe("no-referrer")

    const token = tokenOf(links.click)
    const attempts = [
      `${links.click}?url=https://evil.example/`,
      `${links.click}?redirect=https%3A%2F%2Fevil.example%2F&next=%2F%2Fevil.example`,
      `${ROUTES}/click/${withPayload(token, (claims) => ({ ...claims, u: "https://evil.example/" }))}`,
      `${ROUTES}/click/${tokenOf(links.unsubscribe)}`,
      `${ROUTES}/click/https%3A%2F%2Fevil.example%2F`
    ]
    for (const attempt of attempts) {
      const res = await raw(attempt)
      expect(res.status, attempt).toBe(404)
      expect(res.headers.get("location"), attempt).toBeNull()
    }
    expect((await messageOf(server, tenant, id)).body.clicks).toBe(1)
  })

  it("unsubscribe: the page changes nothing, one-click POST suppresses the address for the empresa", async () => {
    const tenant = await tenantWithAlerts(server)
    const { id, links } = await delivered(tenant)

    const page = await raw(links.unsubscribe)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
    const html = await page.text()
    expect(html).toContain('<form method="post">')
    expect(html).toContain('name="List-Unsubscribe" value="One-Click"')
    expect(html).toContain("g***@padariasol.com.br")
    expect(html).not.toContain(ALERTS)
    expect((await messageOf(server, tenant, id)).body.unsubscribed).toBe(false)

    // RFC 8058: what mail providers send, twice (idempotent).
    const oneClick = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } }
    for (let i = 0; i < 2; i++) {
      const done = await raw(links.unsubscribe, { ...oneClick, body: "List-Unsubscribe=One-Click" })
      expect(done.status).toBe(200)
      expect(await done.text()).toContain("não receberá mais")
    }
    expect((await messageOf(server, tenant, id)).body.unsubscribed).toBe(true)
    expect(await (await raw(links.unsubscribe)).text()).toContain("não receberá mais")

    // Later messages to that address are not sent; another address still is.
    const before = sink.messages.length
    const later = await sendTest(server, tenant, { to: ALERTS.toUpperCase() })
    expect((await settled(server, tenant, later.id)).status).toBe("suppressed")
    const other = await sendTest(server, tenant, { to: "dono@padariasol.com.br" })
    expect((await settled(server, tenant, other.id)).status).toBe("sent")
    expect(sink.messages.length).toBe(before + 1)

    // Another empresa's messages to the same address are not suppressed; JSON bodies work too.
    const elsewhere = await tenantWithAlerts(server)
    const second = await delivered(elsewhere)
    const json = await raw(second.links.unsubscribe, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ "List-Unsubscribe": "One-Click" })
    })
    expect(json.status).toBe(200)

    const refusals: Array<[RequestInit & { path?: string }, number]> = [
      [{ ...oneClick, body: "List-Unsubscribe=Maybe" }, 422],
      [{ ...oneClick, body: "List-Unsubscribe=One-Click&email=someone@example.com" }, 422],
      [{ method: "POST", headers: { "content-type": "text/plain" }, body: "List-Unsubscribe=One-Click" }, 415],
      [{ ...oneClick, body: "List-Unsubscribe=One-Click", path: `${ROUTES}/unsubscribe/${tokenOf(links.open)}` }, 404]
    ]
    for (const [{ path, ...init }, status] of refusals) {
      const res = await raw(path ?? links.unsubscribe, init)
      expect(res.status, String(init.body)).toBe(status)
    }
  })

  it("a message the SMTP server refuses three times ends dead", async () => {
    const tenant = await tenantWithAlerts(server)
    const tried = sink.attempts()
    sink.mode = { kind: "reject", code: 451 }
    try {
      const queued = await sendTest(server, tenant)
      const message = await settled(server, tenant, queued.id)
      expect(message).toMatchObject({ status: "dead", attempts: 3, max_attempts: 3, sent_at: null })
      expect(message.last_error).toContain("451")
      expect(sink.attempts() - tried).toBe(3)
      expect(received(sink, queued.id)).toBeUndefined()
      const dead = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/emails?status=dead`, {
        key: server.adminKey
      })
      expect(dead.body.data.map((m: { id: string }) => m.id)).toEqual([queued.id])
    } finally {
      sink.mode = { kind: "accept" }
    }
  })

  it("the OpenAPI documents list the email routes with their schemas", async () => {
    const doc = (await call(server, "/api/v1/public/openapi.json")).body
    const open = doc.paths["/email/open/{token}.gif"].get
    expect(Object.keys(open.responses["200"].content)).toEqual(["image/gif"])
    expect(open.parameters).toEqual([expect.objectContaining({ name: "token", in: "path", required: true })])
    expect(open.security).toEqual([])
    expect(Object.keys(open.responses)).toEqual(expect.arrayContaining(["404", "429"]))
    expect(open.responses["429"].headers["Retry-After"]).toBeDefined()
    const click = doc.paths["/email/click/{token}"].get
    expect(click.responses["302"].headers.Location).toBeDefined()
    expect(click.responses["200"]).toBeUndefined()
    expect(Object.keys(click.responses["410"].content)).toEqual(["text/html"])
    const unsubscribe = doc.paths["/email/unsubscribe/{token}"]
    expect(Object.keys(unsubscribe.get.responses["200"].content)).toEqual(["text/html"])
    for (const method of ["get", "post"])
      expect(unsubscribe[method].responses["410"].description).toContain("unsubscribe otherwise")
    expect(Object.keys(unsubscribe.post.requestBody.content)).toEqual([
      "application/x-www-form-urlencoded",
      "application/json"
    ])
    expect(unsubscribe.post.requestBody.content["application/x-www-form-urlencoded"].schema).toMatchObject({
      properties: { "List-Unsubscribe": { const: "One-Click" } }
    })

    const internal = (await call(server, "/api/v1/internal/openapi.json")).body
    const test = internal.paths["/empresas/{empresa_id}/emails/test"].post
    expect(Object.keys(test.responses)).toEqual(expect.arrayContaining(["202", "404", "409", "422"]))
    expect(test.requestBody.content["application/json"].schema.properties.to).toMatchObject({ format: "email" })
    const message = internal.paths["/empresas/{empresa_id}/emails/{message_id}"].get.responses["200"]
    expect(message.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/EmailMessage" })
    expect(internal.components.schemas.EmailMessage.properties.status.enum).toEqual([
      "queued",
      "sent",
      "suppressed",
      "dead"
    ])
    expect(internal.paths["/empresas/{empresa_id}/emails"].get).toBeDefined()
  })
})

describe("email routes per client IP", () => {
  // The survey routes' budget is the smaller one here: the email routes must not be held to it.
  const limited = useServer({
    env: { FIDELIS_EMAIL_RATE_LIMIT_PER_MINUTE: "4", FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "2" }
  })

  it("answers 429 with Retry-After past FIDELIS_EMAIL_RATE_LIMIT_PER_MINUTE, on every email route", async () => {
    const statuses: number[] = []
    let last: Response | undefined
    for (const path of ["open/x.gif", "click/x", "unsubscribe/x", "open/y.gif", "click/y"]) {
      last = await fetch(`${limited.url}${ROUTES}/${path}`, { redirect: "manual" })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([404, 404, 404, 404, 429])
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(last!.headers.get("x-ratelimit-limit")).toBe("4")
    expect(await last!.json()).toMatchObject({ detail: { error: "RATE_LIMIT_EXCEEDED" }, code: "RATE_LIMIT_EXCEEDED" })
    // The survey routes keep their own budget, untouched by the email routes'.
    const survey = await fetch(`${limited.url}/api/v1/public/quests/nobody-here/active`)
    expect([survey.status, survey.headers.get("x-ratelimit-limit")]).toEqual([404, "2"])
  })
})

/** Two server starts on a new embedded database, on a loaded machine. */
const TWO_STARTS_MS = 240_000

describe("jobs survive a crash", () => {
  it("a message whose server was killed mid-send is sent by the next start", { timeout: TWO_STARTS_MS }, async () => {
    const crashSink = await startSmtpSink()
    const real = realServerUrl()
    const database = real === undefined ? undefined : await createRealDatabase(real)
    const dataDir = mkdtempSync(join(tmpdir(), "fidelis-crash-"))
    const options = {
      ...(database === undefined ? { embedded: true } : { databaseUrl: database.url }),
      env: {
        FIDELIS_SMTP_URL: crashSink.url,
        // The second server starts well after this has run out (a start takes longer).
        FIDELIS_JOB_LEASE_SECONDS: "10",
        ...(database === undefined ? { FIDELIS_DATA_DIR: dataDir } : {})
      }
    }
    try {
      // The first server takes the job and starts sending; the SMTP server never answers it.
      crashSink.mode = { kind: "hold" }
      const first = await startServer(options)
      const tenant = await tenantWithAlerts(first)
      const queued = await sendTest(first, tenant)
      const deadline = Date.now() + 20_000
      while (crashSink.attempts() === 0) {
        if (Date.now() > deadline) throw new Error("the first server never tried to send")
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      await first.crash()

      crashSink.mode = { kind: "accept" }
      const second = await startServer(options)
      try {
        const [mail] = await crashSink.waitFor(1, 30_000)
        expect(mail!.parsed.messageId).toBe(`<${queued.id}@127.0.0.1>`)
        const message = await settled(second, tenant, queued.id)
        expect(message).toMatchObject({ status: "sent", attempts: 2 })
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(crashSink.messages).toHaveLength(1)
      } finally {
        await second.stop()
      }
    } finally {
      await crashSink.close()
      await database?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  // Two processes polling one in-memory PGlite over its socket would interleave their statements.
  it.runIf(realServerUrl() !== undefined)(
    "two server processes on one PostgreSQL send each of 40 messages exactly once",
    { timeout: TWO_STARTS_MS },
    async () => {
      const pairSink = await startSmtpSink()
      const database = await createSharedDatabase()
      const env = { FIDELIS_SMTP_URL: pairSink.url }
      const [a, b] = await Promise.all([
        startServer({ databaseUrl: database.url, env }),
        startServer({ databaseUrl: database.url, env })
      ])
      try {
        const tenant = await tenantWithAlerts(a)
        const ids = await Promise.all(
          Array.from({ length: 40 }, (_, i) => sendTest(i % 2 ? a : b, tenant).then((m) => m.id))
        )
        await pairSink.waitFor(40, 30_000)
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        const sent = pairSink.messages.map((mail) => mail.parsed.messageId)
        expect(sent).toHaveLength(40)
        expect(new Set(sent)).toEqual(new Set(ids.map((id) => `<${id}@127.0.0.1>`)))
      } finally {
        await Promise.all([a.stop(), b.stop()])
        await pairSink.close()
        await database.drop()
      }
    }
  )
})

describe("the closed loop: a low survey score alerts the empresa", () => {
  const looped = useServer({ env: { FIDELIS_SMTP_URL: sink.url, FIDELIS_ALERT_GRACE_SECONDS: "2" } })

  const respond = async (tenant: Tenant, response: Record<string, unknown>) => {
    const slug = tenant.empresa.id_name
    const active = await call(looped, `/api/v1/public/quests/${slug}/active`)
    expect(active.status).toBe(200)
    const res = await call(looped, `/api/v1/public/quests/${slug}/${active.body.quest_id}/responses`, {
      body: { response }
    })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body as { response_id: string; low_score_alert_sent: boolean }
  }

  it("queues the alert with the scores, the comment and a contact left in the grace period", async () => {
    const tenant = await tenantWithAlerts(looped, "alertas@cafe-loop.com.br")
    const before = sink.messages.length
    const low = await respond(tenant, { csat: 2, nps: 3, comment: "Demorou quarenta minutos" })
    expect(low.low_score_alert_sent).toBe(true)
    const contact = await call(looped, `/api/v1/public/quests/${tenant.empresa.id_name}/${low.response_id}/contact`, {
      method: "PATCH",
      body: { client_name: "Carla Mendes", client_phone: "(21) 99876-5432" }
    })
    expect(contact.status).toBe(200)

    const [alert] = (await sink.waitFor(before + 1, 30_000)).slice(before)
    expect(alert!.envelope.to).toEqual(["alertas@cafe-loop.com.br"])
    const text = String(alert!.parsed.text)
    expect(text).toContain("Demorou quarenta minutos")
    expect(text).toContain("Carla Mendes")
    expect(text).toMatch(/\b2\b/)

    // A promoter and a tenant without an alert address queue nothing.
    expect((await respond(tenant, { csat: 5, nps: 10 })).low_score_alert_sent).toBe(false)
    const silent = await tenantWithAlerts(looped, null)
    expect((await respond(silent, { csat: 1, nps: 0 })).low_score_alert_sent).toBe(false)
  })
})
