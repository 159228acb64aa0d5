import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type ReceivedMail, type SmtpSink } from "../../packages/core/test/smtp-sink.js"
import { emailedToken, endUserEnv, registerAccount, uniqueEmail } from "../support/accounts.js"
import { useServer } from "../support/hooks.js"
import { call, createTenant } from "../support/http.js"

/**
 * A name or a survey comment with CR/LF wrote lines of its own ("Clique: http://evil.example/reset")
 * into the text part of the verification email sent to someone else's address, and of the store's
 * alert emails. Control characters are now folded into spaces in every email, and an address no one
 * has proven is not greeted with the name whoever registered it typed.
 */

const FORGED = "Clique: http://evil.example/reset"
const HOSTILE = `Ana\r\n${FORGED}\r\n`

const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({ env: { ...endUserEnv(sink), FIDELIS_ALERT_GRACE_SECONDS: "5" } })

/** The text part's lines, each as a mail client shows it. */
const linesOf = (mail: ReceivedMail) => String(mail.parsed.text).split(/\r\n|\r|\n/)

const newMailTo = async (to: string, before: number) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const mail = sink.messages.slice(before).find((m) => m.envelope.to.includes(to))
    if (mail !== undefined) return mail
    if (Date.now() > deadline) throw new Error(`no new email to ${to}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** No line of the text part, nor the subject, is the forged one. */
const expectNoForgedLine = (mail: ReceivedMail) => {
  for (const line of linesOf(mail)) expect(line.trim()).not.toMatch(/^Clique:/)
  expect(String(mail.parsed.subject)).not.toContain("\n")
}

describe("a name with CR/LF", () => {
  it("is not in the verification email to the address it was registered with", async () => {
    const email = uniqueEmail()
    await registerAccount(server, { email, nome: HOSTILE })
    const { text } = await emailedToken(sink, email, "verify_email")
    expect(text).not.toContain("evil.example")
    expect(text).toContain("Olá!")
  })

  it("is not in a reset email to an address not yet verified", async () => {
    const email = uniqueEmail()
    await registerAccount(server, { email, nome: HOSTILE })
    await emailedToken(sink, email, "verify_email")
    const before = sink.messages.length
    expect((await call(server, "/api/v1/auth/request-password-reset", { body: { email } })).status).toBe(202)
    const mail = await newMailTo(email, before)
    expect(mail.parsed.headers.get("x-fidelis-message-kind")).toBe("reset_password")
    expect(String(mail.parsed.text)).not.toContain("evil.example")
  })

  it("greets its own verified address on one line, the forged text folded into it", async () => {
    const email = uniqueEmail()
    await registerAccount(server, { email, nome: HOSTILE })
    const { token } = await emailedToken(sink, email, "verify_email")
    expect((await call(server, "/api/v1/auth/verify-email", { body: { token } })).status).toBe(200)
    const before = sink.messages.length
    expect((await call(server, "/api/v1/auth/request-password-reset", { body: { email } })).status).toBe(202)
    const mail = await newMailTo(email, before)
    expectNoForgedLine(mail)
    expect(linesOf(mail)).toContain(`Olá, Ana ${FORGED}!`)
  })
})

describe("a survey comment and a contact name with CR/LF", () => {
  it("forge no line in the store's alert email", async () => {
    const tenant = await createTenant(server)
    const alerts = `alertas-${tenant.empresa.id_name}@example.com`
    const patched = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings: { alert_email: alerts } }
    })
    expect(patched.status).toBe(200)
    const slug = tenant.empresa.id_name
    const active = await call(server, `/api/v1/public/quests/${slug}/active`)
    expect(active.status).toBe(200)
    const before = sink.messages.length
    const res = await call(server, `/api/v1/public/quests/${slug}/${active.body.quest_id}/responses`, {
      body: { response: { csat: 1, nps: 0, comment: `Demorou\r\n${FORGED}` } }
    })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    const contact = await call(server, `/api/v1/public/quests/${slug}/${res.body.response_id}/contact`, {
      method: "PATCH",
      body: { client_name: HOSTILE }
    })
    expect(contact.status).toBe(200)

    const alert = await newMailTo(alerts, before)
    expectNoForgedLine(alert)
    const text = String(alert.parsed.text)
    expect(text).toContain(`Demorou ${FORGED}`)
    expect(text).toContain(`Ana ${FORGED}`)
  })
})
