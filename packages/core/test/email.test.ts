import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { afterAll } from "vitest"
import { Deferred, Effect, Fiber, Schedule, TestServices } from "effect"
import { SignJWT } from "jose"
import type { OutboxMessage } from "../src/email/contracts.js"
import { EmailDelivery, EmailTracking, Outbox } from "../src/email/service.js"
import type { NotFound } from "../src/errors.js"
import type { EmailMessageId, EmpresaId } from "../src/ids.js"
import { runWorker } from "../src/jobs/worker.js"
import { Quests } from "../src/quests/service.js"
import { startSmtpSink, type ReceivedMail, type SmtpSink } from "./smtp-sink.js"
import { newEmpresa, testCore } from "./support.js"

const PUBLIC_URL = "https://fidelis.example.com.br"
const ALERTS = "gerente@padariasol.com.br"

/** A real SMTP server for the file's messages (closed when the file's process ends). */
const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

/** Core with its mail going to the sink, three tries per message and quick backoffs. */
const TestEmail = testCore({
  FIDELIS_SMTP_URL: sink.url,
  FIDELIS_MAIL_FROM: "Fidelis <alertas@fidelis.example.com.br>",
  FIDELIS_JOB_MAX_ATTEMPTS: "3",
  FIDELIS_JOB_BACKOFF_BASE_SECONDS: "0.05",
  FIDELIS_JOB_BACKOFF_MAX_SECONDS: "0.2",
  FIDELIS_ALERT_GRACE_SECONDS: "1"
})

/** Runs `body` with the email worker working the queue, and stops it afterwards. */
const withWorker = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const delivery = yield* EmailDelivery
    const stop = yield* Deferred.make<void>()
    const worker = yield* Effect.fork(runWorker(delivery.handler(PUBLIC_URL), stop, { pollMs: 50 }))
    return yield* body.pipe(
      Effect.ensuring(Deferred.succeed(stop, undefined).pipe(Effect.zipRight(Fiber.join(worker))))
    )
  })

/** The message once it left the queue (sent, suppressed or dead). */
const settled = (empresaId: EmpresaId, id: EmailMessageId) =>
  Outbox.get(empresaId, id).pipe(
    Effect.filterOrFail(
      (message) => message.status !== "queued",
      () => "still queued"
    ),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("20 seconds"))),
    Effect.orDie
  )

/** A default-survey response, written as the survey route will write it (that route is another change). */
const insertResponse = (empresaId: EmpresaId, fields: { csat: number; nps: number; comment?: string; at?: string }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const quest = yield* Quests.ensureDefault(empresaId)
    const answers = { csat: fields.csat, nps: fields.nps, ...(fields.comment ? { comment: fields.comment } : {}) }
    const [row] = yield* sql<{ id: string }>`
      INSERT INTO quest_responses (empresa_id, quest_id, answers, csat, nps, low_score_alert_sent, created_at)
      VALUES (${empresaId}, ${quest.id}, ${JSON.stringify(answers)}::jsonb, ${fields.csat}, ${fields.nps}, true,
              ${fields.at ?? new Date().toISOString()})
      RETURNING id`
    return row!.id
  })

/** The token of a link of a received message, by route (`open`, `click`, `unsubscribe`). */
const tokensIn = (mail: ReceivedMail, route: "open" | "click" | "unsubscribe") =>
  [...String(mail.parsed.html).matchAll(new RegExp(`/api/v1/public/email/${route}/([\\w.-]+?)(?:\\.gif)?"`, "g"))].map(
    (match) => match[1]!
  )

const messageIdOf = (mail: ReceivedMail) => mail.parsed.messageId

/** A header exactly as sent (unfolded), by lower-case name. */
const headerOf = (mail: ReceivedMail, name: string) =>
  mail.parsed.headerLines
    .find((header) => header.key === name)
    ?.line.replace(/\r?\n\s+/g, " ")
    .replace(/^[^:]+:\s*/, "")

// Each test runs on the real clock (the worker and the waits sleep), not the test clock it.effect gives.
layer(TestEmail, { timeout: 60_000 })("the email outbox", (it) => {
  it.effect("the low-score alert is rendered when sent: scores, comment, the contact left meanwhile, headers", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ name: "Padaria Sol", settings: { alert_email: ALERTS } })
      // 17:05 UTC is 14:05 in São Paulo.
      const responseId = yield* insertResponse(empresa.id, {
        csat: 2,
        nps: 4,
        comment: "A comida chegou fria <e salgada>.",
        at: "2026-03-12T17:05:00Z"
      })
      const before = sink.messages.length

      const queued = yield* sql.withTransaction(Outbox.queueLowScoreAlert(empresa.id, responseId))
      expect(queued.queued).toBe(true)
      const messageId = queued.queued ? queued.messageId : ("" as EmailMessageId)
      const waiting = yield* Outbox.get(empresa.id, messageId)
      expect(waiting).toMatchObject({ status: "queued", kind: "low_score_alert", to: ALERTS, attempts: 0 })
      // The grace period: due one second (FIDELIS_ALERT_GRACE_SECONDS) after it was queued.
      expect(Date.parse(waiting.next_attempt_at!) - Date.parse(waiting.created_at)).toBeGreaterThanOrEqual(990)

      // The respondent leaves a contact during the grace period.
      yield* sql`UPDATE quest_responses
                 SET client_name = 'Maria Souza', client_phone = '5511987654321', contact_at = now()
                 WHERE empresa_id = ${empresa.id} AND id = ${responseId}`

      const message = yield* withWorker(settled(empresa.id, messageId))
      expect(message).toMatchObject({ status: "sent", attempts: 1, last_error: null })
      expect(sink.messages.length).toBe(before + 1)
      const mail = sink.messages.at(-1)!

      expect(mail.envelope.to).toEqual([ALERTS])
      expect(mail.parsed.from?.text).toBe('"Fidelis" <alertas@fidelis.example.com.br>')
      expect(mail.parsed.subject).toBe('Nota baixa em "Pesquisa de satisfação": CSAT 2/5, NPS 4/10')
      expect(message.subject).toBe(mail.parsed.subject)
      // The Message-ID is the outbox row's, so a duplicate send would be recognisable.
      expect(messageIdOf(mail)).toBe(`<${messageId}@fidelis.example.com.br>`)
      expect(headerOf(mail, "auto-submitted")).toBe("auto-generated")
      const [unsubscribe] = tokensIn(mail, "unsubscribe")
      expect(headerOf(mail, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click")
      expect(headerOf(mail, "list-unsubscribe")).toBe(`<${PUBLIC_URL}/api/v1/public/email/unsubscribe/${unsubscribe}>`)

      const text = mail.parsed.text!
      for (const expected of [
        'Um cliente deu uma nota baixa na pesquisa "Pesquisa de satisfação" de Padaria Sol.',
        "Respondida em 12/03/2026 às 14:05 (horário de America/Sao_Paulo).",
        "- Como você avalia sua experiência?: 2 de 5",
        "- De 0 a 10, o quanto você nos recomendaria a um amigo?: 4 de 10",
        '- Quer deixar um comentário?: "A comida chegou fria <e salgada>."',
        "- Nome: Maria Souza",
        "- Telefone: (11) 98765-4321",
        "Conversar no WhatsApp: "
      ]) {
        expect(text).toContain(expected)
      }
      const html = String(mail.parsed.html)
      expect(html).toContain("A comida chegou fria &lt;e salgada&gt;.")
      expect(html).not.toContain("<e salgada>")
      expect(tokensIn(mail, "open")).toHaveLength(1)
      expect(html).toMatch(/<img src="https:\/\/fidelis\.example\.com\.br\/api\/v1\/public\/email\/open\/[\w.-]+\.gif"/)

      // Two tracked links: WhatsApp with the respondent, and the survey page.
      const targets = yield* Effect.forEach(tokensIn(mail, "click"), (token) => EmailTracking.click({ token }))
      expect(targets.map((target) => target.location).toSorted()).toEqual([
        `${PUBLIC_URL}/s/${empresa.id_name}`,
        "https://wa.me/5511987654321"
      ])
      yield* EmailTracking.open(tokensIn(mail, "open")[0]!)
      expect(yield* Outbox.get(empresa.id, messageId)).toMatchObject({ opens: 1, clicks: 2, unsubscribed: false })
    }).pipe(TestServices.provideLive)
  )

  it.effect("without a contact the alert says so; without an alert address nothing is queued", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa({ settings: { alert_email: ALERTS, timezone: "America/Manaus" } })
      const responseId = yield* insertResponse(empresa.id, { csat: 1, nps: 0, at: "2026-03-12T17:05:00Z" })
      const queued = yield* Outbox.queueLowScoreAlert(empresa.id, responseId)
      if (!queued.queued) throw new Error("not queued")
      yield* withWorker(settled(empresa.id, queued.messageId))
      const mail = sink.messages.find((m) => messageIdOf(m)?.startsWith(`<${queued.messageId}@`))!
      expect(mail.parsed.text).toContain("O cliente não deixou contato.")
      expect(mail.parsed.text).toContain("Respondida em 12/03/2026 às 13:05 (horário de America/Manaus).")
      expect(mail.parsed.text).not.toContain("WhatsApp")
      expect(mail.parsed.text).not.toContain("comentário")

      const silent = yield* newEmpresa()
      const none = yield* Outbox.queueLowScoreAlert(silent.id, yield* insertResponse(silent.id, { csat: 1, nps: 1 }))
      expect(none).toEqual({ queued: false })
    }).pipe(TestServices.provideLive)
  )

  it.effect("an address that unsubscribed is suppressed for that empresa only", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ settings: { alert_email: ALERTS } })
      const other = yield* newEmpresa({ settings: { alert_email: ALERTS } })
      const first = yield* Outbox.sendTest({ empresa_id: empresa.id })
      yield* withWorker(settled(empresa.id, first.id))
      const mail = sink.messages.find((m) => messageIdOf(m)?.startsWith(`<${first.id}@`))!

      const [token] = tokensIn(mail, "unsubscribe")
      // The page changes nothing; the POST unsubscribes, once however often it is sent.
      expect((yield* EmailTracking.unsubscribePage(token!)).html).toContain("Não quero mais receber")
      expect((yield* Outbox.get(empresa.id, first.id)).unsubscribed).toBe(false)
      yield* EmailTracking.unsubscribe(token!)
      yield* EmailTracking.unsubscribe(token!)
      expect((yield* EmailTracking.unsubscribePage(token!)).html).toContain("não receberá mais")
      expect((yield* Outbox.get(empresa.id, first.id)).unsubscribed).toBe(true)

      const sent = sink.messages.length
      const later = yield* Outbox.sendTest({ empresa_id: empresa.id, to: ALERTS.toUpperCase() })
      const elsewhere = yield* Outbox.sendTest({ empresa_id: other.id })
      const [suppressed, delivered] = yield* withWorker(
        Effect.all([settled(empresa.id, later.id), settled(other.id, elsewhere.id)])
      )
      expect(suppressed.status).toBe("suppressed")
      expect(delivered.status).toBe("sent")
      expect(sink.messages.length).toBe(sent + 1)
      const [job] = yield* sql<{ state: string; outcome: string }>`
        SELECT j.state, j.outcome FROM jobs j JOIN email_messages m ON m.job_id = j.id WHERE m.id = ${later.id}`
      expect(job).toEqual({ state: "done", outcome: "suppressed" })
    }).pipe(TestServices.provideLive)
  )

  it.effect("a message the server refuses three times ends dead; a 5xx refusal ends it at once", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa({ settings: { alert_email: ALERTS } })
      const sent = sink.messages.length

      sink.mode = { kind: "reject", code: 451 }
      const tried = sink.attempts()
      const flaky = yield* Outbox.sendTest({ empresa_id: empresa.id })
      const dead = yield* withWorker(settled(empresa.id, flaky.id)).pipe(
        Effect.ensuring(Effect.sync(() => (sink.mode = { kind: "accept" })))
      )
      expect(dead).toMatchObject({ status: "dead", attempts: 3, max_attempts: 3, sent_at: null })
      expect(dead.last_error).toContain("451")
      expect(sink.attempts() - tried).toBe(3)
      const [job] = yield* sql<{ state: string; attempts: number; finished_at: string | null }>`
        SELECT state, attempts, finished_at FROM jobs j JOIN email_messages m ON m.job_id = j.id
        WHERE m.id = ${flaky.id}`
      expect(job).toMatchObject({ state: "dead", attempts: 3, finished_at: expect.any(String) })

      sink.mode = { kind: "reject", code: 550 }
      const refused = yield* Outbox.sendTest({ empresa_id: empresa.id, to: "nobody@padariasol.com.br" })
      const gone = yield* withWorker(settled(empresa.id, refused.id)).pipe(
        Effect.ensuring(Effect.sync(() => (sink.mode = { kind: "accept" })))
      )
      expect(gone).toMatchObject({ status: "dead", attempts: 1 })
      expect(sink.messages.length).toBe(sent)
      const page = yield* Outbox.list(empresa.id, { empresa_id: empresa.id, page: 1, per_page: 20, status: "dead" })
      expect(page.data.map((m: OutboxMessage) => m.id).toSorted()).toEqual([flaky.id, refused.id].toSorted())
    }).pipe(TestServices.provideLive)
  )

  it.effect("forged, altered or misused tokens are not found; a click goes only to its signed URL", () =>
    Effect.gen(function* () {
      const empresa = yield* newEmpresa({ settings: { alert_email: ALERTS } })
      const message = yield* Outbox.sendTest({ empresa_id: empresa.id })
      yield* withWorker(settled(empresa.id, message.id))
      const mail = sink.messages.find((m) => messageIdOf(m)?.startsWith(`<${message.id}@`))!
      const [click] = tokensIn(mail, "click")
      const [open] = tokensIn(mail, "open")
      const [header, payload, signature] = click!.split(".") as [string, string, string]

      const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, string>
      const elsewhere = Buffer.from(JSON.stringify({ ...claims, u: "https://evil.example/" })).toString("base64url")
      const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`
      const otherKey = yield* Effect.promise(() =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: "HS256" })
          .sign(new TextEncoder().encode("another key, 32 characters long!"))
      )
      const refused: ReadonlyArray<Effect.Effect<unknown, NotFound, EmailTracking>> = [
        EmailTracking.click({ token: "not-a-token" }),
        EmailTracking.click({ token: `${header}.${elsewhere}.${signature}` }),
        EmailTracking.click({ token: unsigned }),
        EmailTracking.click({ token: otherKey }),
        EmailTracking.click({ token: open! }),
        EmailTracking.click({ token: click!, url: "https://evil.example/" }),
        EmailTracking.open(click!),
        EmailTracking.unsubscribe(open!),
        EmailTracking.unsubscribePage(`${click!}x`)
      ]
      for (const attempt of refused) {
        expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "NotFound" })
      }
      expect(yield* EmailTracking.click({ token: click! })).toEqual({ location: `${PUBLIC_URL}/s/${empresa.id_name}` })
      expect(yield* Outbox.get(empresa.id, message.id)).toMatchObject({ opens: 0, clicks: 1, unsubscribed: false })
    }).pipe(TestServices.provideLive)
  )
})
