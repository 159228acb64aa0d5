import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { databaseNow } from "../clock.js"
import { Config } from "../config.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import type { EmailMessageId, EmpresaId } from "../ids.js"
import { JobFailed, type ClaimedJob, type JobDone } from "../jobs/contracts.js"
import type { ResearchField } from "../quests/contracts.js"
import { referralLinkOf } from "../referrals/contracts.js"
import type { EmailKind, OutboxMessage } from "./contracts.js"
import { EMAIL_QUEUE } from "./outbox.js"
import { lowScoreAlert, referralInvite, testMessage, whatsappUrl, type AlertFacts, type CommonLinks } from "./render.js"
import { EmailTracking } from "./tracking.js"
import { Mailer } from "./transport.js"
import { span } from "../tracing.js"

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

/**
 * The `email` queue's handler: sends each queued outbox message, rendered now from the rows it
 * names, with its tracked links, unless its address unsubscribed.
 */
export class EmailDelivery extends Effect.Service<EmailDelivery>()("core/EmailDelivery", {
  accessors: true,
  dependencies: [EmailTracking.Default, Mailer.Default, Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const tracking = yield* EmailTracking
    const mailer = yield* Mailer
    const empresas = yield* Empresas
    const now = sql.literal(databaseNow(config.clockOffsetSeconds))

    type Links = ReturnType<typeof tracking.linksOf>

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
    const render = (message: MessageRow, links: Links, common: CommonLinks) =>
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
        const links = tracking.linksOf(publicUrl, message)
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
        span("EmailDelivery.deliver")
      )

    /** The message's row says dead too once its job is (in the same transaction). */
    const markDead = (job: ClaimedJob, error: string) =>
      sql`
        UPDATE email_messages SET status = 'dead', last_error = ${error.slice(0, 2000)}
        WHERE empresa_id = ${String(job.payload["empresa_id"])} AND id = ${String(job.payload["message_id"])}
          AND status = 'queued'`.pipe(Effect.asVoid, Effect.orDie)

    return {
      /** The `email` queue's handler, with links under `publicUrl`. */
      handler: (publicUrl: string) => ({ queue: EMAIL_QUEUE, run: deliver(publicUrl), onDead: markDead }),
      /** Where mail goes, for the start-up log. */
      target: mailer.target
    }
  })
}) {}
