import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Config } from "../config.js"
import { pageOf } from "../contracts.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound } from "../errors.js"
import type { EmailMessageId, EmpresaId } from "../ids.js"
import { Jobs } from "../jobs/service.js"
import type { ListMessagesInput, NewEmail, OutboxMessage, TestEmailInput } from "./contracts.js"
import { traced } from "../tracing.js"

/** The queue the outbox's jobs travel on. */
export const EMAIL_QUEUE = "email"

/** The events of message `m` of one kind. */
const eventsOf = (kind: string) =>
  `FROM email_events e WHERE e.empresa_id = m.empresa_id AND e.message_id = m.id AND e.kind = '${kind}'`

const MESSAGE_COLUMNS = `m.id, m.empresa_id, m.kind, m.to_address AS "to", m.status, m.subject,
  j.attempts, j.max_attempts, CASE WHEN m.status = 'queued' THEN j.run_at END AS next_attempt_at,
  coalesce(m.last_error, j.last_error) AS last_error, m.sent_at, m.created_at,
  (SELECT count(*)::int ${eventsOf("open")}) AS opens,
  (SELECT count(*)::int ${eventsOf("click")}) AS clicks,
  EXISTS (SELECT 1 ${eventsOf("unsubscribe")}) AS unsubscribed`

/**
 * The email outbox (docs/decisions.md, "Email"): messages are queued in the caller's transaction
 * and rendered when their job runs (`EmailDelivery`), from the rows they name, so a later change (a
 * contact left during an alert's grace period) is in the message. Each message row reads with its
 * job's tries and the opens, clicks and unsubscribe its links recorded (`EmailTracking`).
 */
export class Outbox extends Effect.Service<Outbox>()("core/Outbox", {
  accessors: true,
  dependencies: [Jobs.Default, Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const jobs = yield* Jobs
    const empresas = yield* Empresas
    const columns = sql.literal(MESSAGE_COLUMNS)

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

    return sqlErrorsAsDefects({ enqueue, queueLowScoreAlert, get, list, sendTest })
  })
}) {}
