import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { databaseNow } from "../clock.js"
import { Config } from "../config.js"
import { pageOf } from "../contracts.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound } from "../errors.js"
import type { EmailMessageId, EmpresaId } from "../ids.js"
import { JobFailed, type ClaimedJob, type JobDone } from "../jobs/contracts.js"
import { Jobs } from "../jobs/service.js"
import type { ResearchField } from "../quests/contracts.js"
import type { EmailKind, ListMessagesInput, NewEmail, OutboxMessage, TestEmailInput } from "./contracts.js"
import { referralLinkOf } from "../referrals/contracts.js"
import {
  expiredLinkPage,
  lowScoreAlert,
  referralInvite,
  testMessage,
  unsubscribePage,
  whatsappUrl,
  type AlertFacts,
  type CommonLinks
} from "./render.js"
import { EmailTokens, LINK_LIFETIME_DAYS, type TokenKind } from "./tokens.js"
import { Mailer } from "./transport.js"
import { traced, span } from "../tracing.js"

/**
 * The transport and the account messages, for the account mail that travels on its own queue
 * (docs/decisions.md "Account mail beside the outbox").
 */
export { Mailer } from "./transport.js"
export { resetPasswordMessage, verifyEmailMessage, type AccountLink } from "./render.js"

/** The queue the outbox's jobs travel on. */
export const EMAIL_QUEUE = "email"

/** A transparent 1x1 GIF, the open pixel. */
const PIXEL = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"

/** The tracking routes, under the public base path (docs/architecture.md, "Surveys and email"). */
const ROUTES = "/api/v1/public/email"

/** The events of message `m` of one kind. */
const eventsOf = (kind: string) =>
  `FROM email_events e WHERE e.empresa_id = m.empresa_id AND e.message_id = m.id AND e.kind = '${kind}'`

const MESSAGE_COLUMNS = `m.id, m.empresa_id, m.kind, m.to_address AS "to", m.status, m.subject,
  j.attempts, j.max_attempts, CASE WHEN m.status = 'queued' THEN j.run_at END AS next_attempt_at,
  coalesce(m.last_error, j.last_error) AS last_error, m.sent_at, m.created_at,
  (SELECT count(*)::int ${eventsOf("open")}) AS opens,
  (SELECT count(*)::int ${eventsOf("click")}) AS clicks,
  EXISTS (SELECT 1 ${eventsOf("unsubscribe")}) AS unsubscribed`

/** The outbox row a job sends, as the send reads it. */
interface MessageRow {
  readonly empresa_id: EmpresaId
  readonly id: EmailMessageId
  readonly kind: EmailKind
  readonly to_address: string
  readonly payload: Record<string, unknown>
  readonly status: OutboxMessage["status"]
}

interface ResponseRow {
  readonly csat: number | null
  readonly nps: number | null
  readonly answers: Record<string, unknown>
  readonly client_name: string | null
  readonly client_phone: string | null
  readonly quest_name: string
  readonly research: { readonly fields: ReadonlyArray<ResearchField> }
  readonly answered_at: string
}

/** Each answered question of the survey, in its order, as the alert lists it. */
const answersOf = (response: ResponseRow): AlertFacts["answers"] =>
  response.research.fields.flatMap((field) => {
    const value = response.answers[field.id]
    if (value === undefined || value === null || value === "") return []
    const text = field.type === "rating" ? `${String(value)} de ${field.max}` : `"${String(value)}"`
    return [{ label: field.label, value: text }]
  })

/** The page an unsubscribe link past its year answers, GET or POST. */
const expiredUnsubscribe = (empresaName: string) => ({
  html: expiredLinkPage({ empresaName, kind: "unsubscribe", lifetimeDays: LINK_LIFETIME_DAYS.unsubscribe }),
  expired: true as const
})

const notFound = () => new NotFound({ resource: "Link", id: "token" })

/**
 * The email outbox (docs/decisions.md, "Email"): messages are queued in the caller's transaction
 * and rendered when their job runs, from the rows they name, so a later change (a contact left
 * during an alert's grace period) is in the message. Every message carries an open pixel,
 * tracked links and an unsubscribe link (also as List-Unsubscribe with one-click POST); an
 * address that unsubscribed is suppressed for that empresa.
 */
export class Outbox extends Effect.Service<Outbox>()("core/Outbox", {
  accessors: true,
  dependencies: [Jobs.Default, EmailTokens.Default, Mailer.Default, Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const jobs = yield* Jobs
    const tokens = yield* EmailTokens
    const mailer = yield* Mailer
    const empresas = yield* Empresas
    const columns = sql.literal(MESSAGE_COLUMNS)
    const now = sql.literal(databaseNow(config.clockOffsetSeconds))

    /**
     * Queues a message: its outbox row and the job that sends it, in the caller's transaction when
     * there is one, so the email exists exactly when the action that causes it committed.
     */
    const enqueue = traced("Outbox.enqueue")(function* (email: NewEmail) {
      const id = randomUUID() as EmailMessageId
      const jobId = yield* jobs.enqueue({
        queue: EMAIL_QUEUE,
        payload: { empresa_id: email.empresaId, message_id: id },
        delaySeconds: email.delaySeconds
      })
      yield* sql`
        INSERT INTO email_messages (empresa_id, id, kind, to_address, payload, job_id)
        VALUES (${email.empresaId}, ${id}, ${email.kind}, ${email.to}, ${jsonb(email.payload)}::jsonb, ${jobId})`
      return { id, jobId }
    })

    /**
     * Queues the low-score alert for a survey response to the empresa's `alert_email`, sent after
     * the grace period (FIDELIS_ALERT_GRACE_SECONDS) so a contact the respondent leaves meanwhile is
     * in it. Joins the caller's transaction. `queued` is false when the empresa set no alert address.
     */
    const queueLowScoreAlert = traced("Outbox.queueLowScoreAlert")(function* (
      empresaId: EmpresaId,
      responseId: string
    ) {
      const to = settingsOf(yield* empresas.get(empresaId)).alert_email
      if (to === null) return { queued: false as const }
      const { id } = yield* enqueue({
        empresaId,
        kind: "low_score_alert",
        to,
        payload: { response_id: responseId },
        delaySeconds: config.email.alertGraceSeconds
      })
      return { queued: true as const, messageId: id }
    })

    const get = traced("Outbox.get")(function* (empresaId: EmpresaId, messageId: EmailMessageId) {
      const [row] = yield* sql<OutboxMessage>`
        SELECT ${columns} FROM email_messages m JOIN jobs j ON j.id = m.job_id
        WHERE m.empresa_id = ${empresaId} AND m.id = ${messageId}`
      if (row === undefined) return yield* new NotFound({ resource: "Message", id: messageId })
      return row
    })

    const list = traced("Outbox.list")(function* (empresaId: EmpresaId, input: ListMessagesInput) {
      const filters = [
        sql`m.empresa_id = ${empresaId}`,
        ...(input.status === undefined ? [] : [sql`m.status = ${input.status}`])
      ]
      const rows = yield* sql<OutboxMessage>`
        SELECT ${columns} FROM email_messages m JOIN jobs j ON j.id = m.job_id
        WHERE ${sql.and(filters)}
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT ${input.per_page} OFFSET ${(input.page - 1) * input.per_page}`
      const [count] = yield* sql<{ total: number }>`
        SELECT count(*)::int AS total FROM email_messages m WHERE ${sql.and(filters)}`
      return pageOf(rows, count?.total ?? 0, input.page, input.per_page)
    })

    /** Queues a test message to `to` or the empresa's alert address, to check the set-up end to end. */
    const sendTest = traced("Outbox.sendTest")(function* (input: TestEmailInput) {
      const empresaId = input.empresa_id
      // Looked up even when `to` is given: an unknown empresa is a 404, never a row without an owner.
      const empresa = yield* empresas.get(empresaId)
      const to = input.to ?? settingsOf(empresa).alert_email
      if (to === null) {
        return yield* new Conflict({
          code: "ALERT_EMAIL_NOT_SET",
          message: "The empresa has no alert_email setting: set one, or name the address in `to`"
        })
      }
      const { id } = yield* inTransaction(sql)(enqueue({ empresaId, kind: "test", to, payload: {} }))
      return yield* get(empresaId, id)
    })

    // ---- sending --------------------------------------------------------------------------

    /** The signed links of one message, under the public base URL. */
    const linksOf = (publicUrl: string, message: MessageRow) => {
      const token = (kind: TokenKind, url?: string) =>
        tokens.sign({
          kind,
          messageId: message.id,
          empresaId: message.empresa_id,
          url,
          ownPage: url?.startsWith(`${publicUrl}/`)
        })
      return {
        base: publicUrl,
        common: Effect.all({
          pixel: Effect.map(token("open"), (t) => `${publicUrl}${ROUTES}/open/${t}.gif`),
          unsubscribe: Effect.map(token("unsubscribe"), (t) => `${publicUrl}${ROUTES}/unsubscribe/${t}`)
        }),
        tracked: (url: string) => Effect.map(token("click", url), (t) => `${publicUrl}${ROUTES}/click/${t}`)
      }
    }

    /** The survey response an alert is about, read now: a contact left since the enqueue is in it. */
    const alertFacts = (message: MessageRow, timezone: string) =>
      Effect.gen(function* () {
        const [response] = yield* sql<ResponseRow>`
          SELECT r.csat, r.nps, r.answers, r.client_name, r.client_phone, q.name AS quest_name, q.research,
                 to_char(r.created_at AT TIME ZONE ${timezone}, 'DD/MM/YYYY "às" HH24:MI') AS answered_at
          FROM quest_responses r JOIN quests q ON q.empresa_id = r.empresa_id AND q.id = r.quest_id
          WHERE r.empresa_id = ${message.empresa_id} AND r.id = ${String(message.payload["response_id"])}`
        return response
      })

    /** Renders a message from the rows it names, as they are now. */
    const render = (message: MessageRow, links: ReturnType<typeof linksOf>, common: CommonLinks) =>
      Effect.gen(function* () {
        const empresa = yield* empresas.get(message.empresa_id)
        const settings = settingsOf(empresa)
        const survey = yield* links.tracked(`${links.base}/s/${empresa.id_name}`)
        if (message.kind === "test") return testMessage({ empresaName: empresa.name }, { ...common, survey })
        if (message.kind === "referral_invite") {
          const [user] = yield* sql<{ nome: string; referral_code: string }>`
            SELECT nome, referral_code FROM users WHERE id = ${String(message.payload["user_id"])}::uuid`
          if (user === undefined) {
            return yield* new JobFailed({ message: "The user of this invitation no longer exists", permanent: true })
          }
          const referral = yield* links.tracked(referralLinkOf(links.base, user.referral_code, empresa.id))
          return referralInvite(
            { empresaName: empresa.name, nome: user.nome, code: user.referral_code },
            { ...common, referral }
          )
        }

        const response = yield* alertFacts(message, settings.timezone)
        if (response === undefined) {
          return yield* new JobFailed({
            message: "The survey response of this alert no longer exists",
            permanent: true
          })
        }
        const phone = response.client_phone
        const whatsapp = phone === null ? undefined : whatsappUrl(phone)
        const facts: AlertFacts = {
          empresaName: empresa.name,
          questName: response.quest_name,
          answeredAt: response.answered_at,
          timezone: settings.timezone,
          csat: response.csat,
          nps: response.nps,
          answers: answersOf(response),
          contact: { name: response.client_name, phone }
        }
        return lowScoreAlert(facts, {
          ...common,
          survey,
          whatsapp: whatsapp === undefined ? undefined : yield* links.tracked(whatsapp)
        })
      }).pipe(
        Effect.catchTag("NotFound", (error) => Effect.fail(new JobFailed({ message: error.message, permanent: true })))
      )

    const suppressed = (message: MessageRow) =>
      Effect.map(
        sql`SELECT 1 FROM email_suppressions
            WHERE empresa_id = ${message.empresa_id} AND address = ${message.to_address.toLowerCase()}`,
        (rows) => rows.length > 0
      )

    /**
     * One try at a queued message (the `email` queue's handler): skipped when already settled (a
     * retry after a crash), suppressed when the address unsubscribed, else rendered and sent. Its
     * Message-ID is the outbox row's id, so the rare duplicate of an at-least-once send is
     * recognisable.
     */
    const deliver = (publicUrl: string) => (job: ClaimedJob) =>
      Effect.gen(function* () {
        const [message] = yield* sql<MessageRow>`
          SELECT empresa_id, id, kind, to_address, payload, status FROM email_messages
          WHERE empresa_id = ${String(job.payload["empresa_id"])} AND id = ${String(job.payload["message_id"])}`
        if (message === undefined) {
          return yield* new JobFailed({ message: "The outbox message of this job does not exist", permanent: true })
        }
        if (message.status !== "queued") return { outcome: `already ${message.status}` } satisfies JobDone
        if (yield* suppressed(message)) {
          yield* sql`UPDATE email_messages SET status = 'suppressed'
                     WHERE empresa_id = ${message.empresa_id} AND id = ${message.id} AND status = 'queued'`
          return { outcome: "suppressed" } satisfies JobDone
        }
        const links = linksOf(publicUrl, message)
        const common = yield* links.common
        const rendered = yield* render(message, links, common)
        const { response } = yield* mailer.send({
          to: message.to_address,
          subject: rendered.subject,
          text: rendered.text,
          html: rendered.html,
          // The outbox row's id, so the rare duplicate of an at-least-once send is recognisable.
          messageId: `<${message.id}@${new URL(publicUrl).hostname}>`,
          headers: {
            "List-Unsubscribe": `<${common.unsubscribe}>`,
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
            "X-Fidelis-Message-Kind": message.kind
          }
        })
        // On the clock its links' lifetimes are judged by.
        yield* sql`
          UPDATE email_messages SET status = 'sent', sent_at = ${now}, subject = ${rendered.subject},
            smtp_response = ${response.slice(0, 1000)}, last_error = NULL
          WHERE empresa_id = ${message.empresa_id} AND id = ${message.id} AND status = 'queued'`
        return { outcome: undefined } satisfies JobDone
      }).pipe(
        Effect.catchTag("SqlError", (error) => Effect.fail(new JobFailed({ message: error.message }))),
        span("Outbox.deliver")
      )

    /** The message's row says dead too once its job is (in the same transaction). */
    const markDead = (job: ClaimedJob, error: string) =>
      sql`
        UPDATE email_messages SET status = 'dead', last_error = ${error.slice(0, 2000)}
        WHERE empresa_id = ${String(job.payload["empresa_id"])} AND id = ${String(job.payload["message_id"])}
          AND status = 'queued'`.pipe(Effect.asVoid, Effect.orDie)

    // ---- tracking routes ------------------------------------------------------------------

    /**
     * The message a token names, if the token verifies, and whether its link still works: a link
     * lives `LINK_LIFETIME_DAYS` from the message's sending (its queueing, should the send not have
     * been recorded), judged by the database's clock. A token that does not verify, or names no
     * message, is a 404.
     */
    const linked = (token: string, kind: TokenKind) =>
      Effect.gen(function* () {
        const claims = yield* Effect.flatMap(
          tokens.verify(token, kind),
          Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
        )
        const [row] = yield* sql<{ to_address: string; empresa_name: string; live: boolean }>`
          SELECT m.to_address, e.name AS empresa_name,
                 coalesce(m.sent_at, m.created_at) + make_interval(days => ${LINK_LIFETIME_DAYS[kind]}) > ${now} AS live
          FROM email_messages m JOIN empresas e ON e.id = m.empresa_id
          WHERE m.empresa_id = ${claims.empresaId} AND m.id = ${claims.messageId}`
        if (row === undefined) return yield* notFound()
        return { claims, ...row }
      })

    /** Records an event of the message the token names. */
    const record = (claims: { empresaId: EmpresaId; messageId: EmailMessageId }, kind: TokenKind, url?: string) =>
      sql`
        INSERT INTO email_events (empresa_id, message_id, kind, url)
        VALUES (${claims.empresaId}, ${claims.messageId}, ${kind}, ${url ?? null})`

    /** The open pixel: counts an open of the message while its link lives; the GIF either way. */
    const open = traced("Outbox.open")(function* (token: string) {
      const { claims, live } = yield* linked(token, "open")
      if (live) yield* record(claims, "open")
      return { content_type: "image/gif", body_base64: PIXEL }
    })

    /**
     * A tracked link: counts the click and redirects to the URL signed in the token, the only
     * target there is. Another parameter (`?url=…`) makes the link unknown, as an altered token does.
     * Expired, it still leads to a page of this server (the survey page), uncounted, but no longer
     * outside (a WhatsApp link names the respondent's phone): a page says the link has expired.
     */
    const click = traced("Outbox.click")(function* (input: { token: string } & Record<string, unknown>) {
      if (Object.keys(input).some((name) => name !== "token")) return yield* notFound()
      const { claims, live, empresa_name } = yield* linked(input.token, "click")
      if (claims.url === undefined) return yield* notFound()
      if (live) yield* record(claims, "click", claims.url)
      if (live || claims.ownPage) return { location: claims.url }
      const page = expiredLinkPage({ empresaName: empresa_name, kind: "click", lifetimeDays: LINK_LIFETIME_DAYS.click })
      return { html: page, expired: true as const }
    })

    /**
     * The unsubscribe page: asks to confirm with a POST; a GET changes nothing (scanners prefetch
     * links). Expired, the page says how to unsubscribe otherwise.
     */
    const unsubscribePageOf = traced("Outbox.unsubscribePage")(function* (token: string) {
      const { claims, live, to_address, empresa_name } = yield* linked(token, "unsubscribe")
      if (!live) return expiredUnsubscribe(empresa_name)
      const [done] = yield* sql`
        SELECT 1 FROM email_suppressions
        WHERE empresa_id = ${claims.empresaId} AND address = ${to_address.toLowerCase()}`
      return {
        html: unsubscribePage({ empresaName: empresa_name, address: to_address, state: done ? "done" : "ask" })
      }
    })

    /**
     * Unsubscribes the message's recipient from the empresa's email (RFC 8058 one-click, or the
     * page's button): every later message to that address is suppressed. Idempotent. An expired
     * link changes nothing and answers the page that says how to unsubscribe otherwise.
     */
    const unsubscribe = traced("Outbox.unsubscribe")(function* (token: string) {
      const { claims, live, to_address, empresa_name } = yield* linked(token, "unsubscribe")
      if (!live) return expiredUnsubscribe(empresa_name)
      yield* inTransaction(sql)(
        Effect.gen(function* () {
          const added = yield* sql`
            INSERT INTO email_suppressions (empresa_id, address, message_id)
            VALUES (${claims.empresaId}, ${to_address.toLowerCase()}, ${claims.messageId})
            ON CONFLICT (empresa_id, address) DO NOTHING
            RETURNING address`
          if (added.length > 0) yield* record(claims, "unsubscribe")
        })
      )
      return { html: unsubscribePage({ empresaName: empresa_name, address: to_address, state: "done" }) }
    })

    return {
      ...sqlErrorsAsDefects({
        enqueue,
        queueLowScoreAlert,
        get,
        list,
        sendTest,
        open,
        click,
        unsubscribePage: unsubscribePageOf,
        unsubscribe
      }),
      /** The `email` queue's handler, with links under `publicUrl`. */
      handler: (publicUrl: string) => ({ queue: EMAIL_QUEUE, run: deliver(publicUrl), onDead: markDead }),
      /** Where mail goes, for the start-up log. */
      target: mailer.target
    }
  })
}) {}
