import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { digitsOnly, pageOf } from "../contracts.js"
import { normalizeBrazilianPhone, PHONE_RULE } from "../documents.js"
import { settingsOf, type Empresa } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { Outbox } from "../email/service.js"
import { BadRequest, Conflict, NotFound } from "../errors.js"
import type { EmpresaId, QuestId, ResponseId, UserId } from "../ids.js"
import { JobFailed, type ClaimedJob, type JobDone } from "../jobs/contracts.js"
import { Jobs } from "../jobs/service.js"
import type { JobHandler } from "../jobs/contracts.js"
import type { Quest } from "../quests/contracts.js"
import { Quests } from "../quests/service.js"
import { BAND_SQL, checkAnswers, isLowScore, isPromoter, scoresOf } from "./answers.js"
import type {
  ActiveSurvey,
  Band,
  ContactResult,
  ListResponsesInput,
  QuestResponse,
  SaveContactInput,
  SubmissionResult,
  SubmitResponseInput
} from "./contracts.js"
import { span, traced } from "../tracing.js"

/** A stored response as the contact step and the company list read it. */
interface ResponseRow {
  readonly id: ResponseId
  readonly quest_id: QuestId
  readonly answers: Record<string, unknown>
  readonly csat: number | null
  readonly nps: number | null
  readonly band: Band | null
  readonly client_name: string | null
  readonly client_phone: string | null
  readonly contact_at: string | null
  readonly cta_review_enabled: boolean
  readonly low_score_alert_sent: boolean
  readonly submitted_at: string
}

const RESPONSE_COLUMNS = `
  id, quest_id, answers, csat, nps, ${BAND_SQL} AS band, client_name, client_phone, contact_at,
  cta_review_enabled, low_score_alert_sent, created_at AS submitted_at`

/** The queue of the referral invitations a promoter's contact causes. */
const INVITE_QUEUE = "survey_referral_invite"

/** A client gets at most one referral invitation per empresa in this many days. */
const INVITE_DAYS = 30

/** A contact value as stored: trimmed; empty (or, for a phone, without digits) is null. */
const blankAsNull = (value: string | null) => (value === null || value.trim() === "" ? null : value.trim())

/** Spec 4.3 rule 4: a promoter, a review link, and for custom surveys the survey's own consent. */
const reviewLink = (empresa: Empresa, survey: Quest, promoter: boolean) => {
  const url = settingsOf(empresa).url_review_avaliation
  const offered = survey.survey_type === "standard_csat_nps" || survey.cta_review_on_promoter
  return promoter && offered ? url : null
}

/**
 * The public survey routes (spec 4.3) and the company's view of the responses. A ref resolves to
 * exactly one empresa, and everything after is scoped by its id: a quest or response id of another
 * establishment is as unknown as a made-up one.
 */
export class Surveys extends Effect.Service<Surveys>()("core/Surveys", {
  accessors: true,
  dependencies: [Empresas.Default, Quests.Default, Outbox.Default, Jobs.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const empresas = yield* Empresas
    const quests = yield* Quests
    const outbox = yield* Outbox
    const jobs = yield* Jobs
    const responseColumns = sql.literal(RESPONSE_COLUMNS)

    /** The empresa a survey link names, by slug or UUID (spec 7.2: 404 "establishment not found"). */
    const establishment = (ref: string) =>
      empresas
        .resolve(ref)
        .pipe(Effect.catchTag("NotFound", () => Effect.fail(new NotFound({ resource: "Establishment", id: ref }))))

    /** The survey served, or none when the empresa has switched every survey off. */
    const served = (empresa: Empresa) => quests.activeSurvey(empresa.id).pipe(Effect.map(Option.getOrUndefined))

    const active = traced("Surveys.active")(function* (ref: string) {
      const empresa = yield* establishment(ref)
      const survey = yield* served(empresa)
      if (survey === undefined)
        return yield* new NotFound({ resource: "Active public survey of establishment", id: ref })
      const settings = settingsOf(empresa)
      return {
        quest_id: survey.id,
        empresa_id: empresa.id,
        survey_type: survey.survey_type,
        estabelecimento_slug: empresa.id_name,
        estabelecimento_nome: empresa.name,
        name: survey.name,
        description: survey.description,
        research: survey.research,
        valid_until: survey.valid_until,
        cta_review_configured: settings.url_review_avaliation !== null,
        profile_picture: settings.logo_url,
        primary_color: settings.primary_color
      } satisfies ActiveSurvey
    })

    /**
     * Records one response to the establishment's active survey. With an idempotency key, the
     * unique index on (empresa, quest, key) lets exactly one of any number of concurrent
     * duplicates in; the others find the key taken and are refused (spec 4.3 rule 3).
     */
    const respond = traced("Surveys.respond")(function* (
      input: SubmitResponseInput,
      idempotencyKey: string | undefined
    ) {
      const empresa = yield* establishment(input.estabelecimento_ref)
      const survey = yield* served(empresa)
      if (survey?.id !== input.quest_id) {
        return yield* new BadRequest({
          message:
            `Quest ${input.quest_id} is not the active public survey of this establishment; ` +
            `GET /quests/${input.estabelecimento_ref}/active names it`
        })
      }
      const checked = checkAnswers(survey.research.fields, input.response)
      if ("problem" in checked) return yield* new BadRequest({ message: checked.problem })
      const scores = scoresOf(survey.research.fields, checked.answers)
      const reviewUrl = reviewLink(empresa, survey, isPromoter(scores))
      // A low score alerts the establishment by email, queued on the outbox in this transaction,
      // when the empresa has an alert address: the flag says an alert is on its way, not a hope.
      yield* Effect.annotateCurrentSpan("low_score", isLowScore(scores))
      const lowScoreAlertSent = isLowScore(scores) && settingsOf(empresa).alert_email !== null
      const [row] = yield* sql<{ id: ResponseId; submitted_at: string }>`
          INSERT INTO quest_responses (empresa_id, quest_id, answers, csat, nps, cta_review_enabled,
                                       low_score_alert_sent, idempotency_key)
          VALUES (${empresa.id}, ${survey.id}, ${jsonb(checked.answers)}::jsonb, ${scores.csat}, ${scores.nps},
                  ${reviewUrl !== null}, ${lowScoreAlertSent}, ${idempotencyKey ?? null})
          ON CONFLICT (empresa_id, quest_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
          RETURNING id, created_at AS submitted_at`
      if (row === undefined) {
        return yield* new Conflict({
          code: "DUPLICATE_RESPONSE",
          message: "Duplicate response: this survey already has a response with this X-Idempotency-Key"
        })
      }
      if (lowScoreAlertSent) yield* outbox.queueLowScoreAlert(empresa.id, row.id)
      return {
        response_id: row.id,
        quest_id: survey.id,
        empresa_id: empresa.id,
        submitted_at: row.submitted_at,
        cta_review_enabled: reviewUrl !== null,
        cta_review_url: reviewUrl,
        low_score_alert_sent: lowScoreAlertSent
      } satisfies SubmissionResult
    }, inTransaction(sql))

    /**
     * Saves (or changes) the optional contact of a response of this establishment. Absent fields
     * stay as they are; empty ones are stored as null (spec 4.3, contact rules). A promoter's phone
     * queues the referral invitation's job (`inviteHandler`), whether or not the phone is a client's:
     * the request does the same work and gives the same answer either way, so it tells an anonymous
     * caller nothing about who is a client.
     */
    const contact = traced("Surveys.contact")(function* (input: SaveContactInput) {
      const empresa = yield* establishment(input.estabelecimento_ref)
      const set: Record<string, string | null> = {}
      if (input.client_name !== undefined) set["client_name"] = blankAsNull(input.client_name)
      if (input.client_phone !== undefined) {
        const digits = input.client_phone === null ? "" : digitsOnly(input.client_phone)
        if (digits !== "" && normalizeBrazilianPhone(input.client_phone!) === undefined) {
          return yield* new BadRequest({ message: PHONE_RULE })
        }
        set["client_phone"] = digits === "" ? null : digits
      }
      const [row] =
        Object.keys(set).length === 0
          ? yield* sql<ResponseRow>`
              SELECT ${responseColumns} FROM quest_responses
              WHERE empresa_id = ${empresa.id} AND id = ${input.response_id}`
          : yield* sql<ResponseRow>`
              UPDATE quest_responses SET ${sql.update(set)}, contact_at = now()
              WHERE empresa_id = ${empresa.id} AND id = ${input.response_id}
              RETURNING ${responseColumns}`
      if (row === undefined) return yield* new NotFound({ resource: "Response", id: input.response_id })
      const invite = row.client_phone !== null && isPromoter(row)
      if (invite && typeof set["client_phone"] === "string") {
        yield* jobs.enqueue({ queue: INVITE_QUEUE, payload: { empresa_id: empresa.id, response_id: row.id } })
      }
      return {
        success: true,
        response_id: row.id,
        quest_id: row.quest_id,
        empresa_id: empresa.id,
        submitted_at: row.submitted_at,
        client_name: row.client_name,
        client_phone: row.client_phone,
        referral_invite: invite
      } satisfies ContactResult
    }, inTransaction(sql))

    /**
     * The referral invitation a promoter's contact queued: when the phone is that of a client of the
     * empresa whose account email is verified (the oldest such client; phones compared as digits,
     * with or without 55), the client's referral link is emailed to that address through the outbox,
     * at most once in INVITE_DAYS per client, so a phone typed into many responses cannot flood
     * anyone's inbox. Nothing is sent otherwise.
     */
    const invite = (job: ClaimedJob) =>
      inTransaction(sql)(
        Effect.gen(function* () {
          const empresaId = String(job.payload["empresa_id"]) as EmpresaId
          const [response] = yield* sql<{ client_phone: string | null; csat: number | null; nps: number | null }>`
            SELECT client_phone, csat, nps FROM quest_responses
            WHERE empresa_id = ${empresaId} AND id = ${String(job.payload["response_id"])}`
          const international =
            response?.client_phone == null || !isPromoter(response)
              ? undefined
              : normalizeBrazilianPhone(response.client_phone)
          if (international === undefined) return { outcome: "no promoter's phone" } satisfies JobDone
          const [client] = yield* sql<{ user_id: UserId; email: string }>`
            SELECT u.id AS user_id, u.email
            FROM clients c JOIN users u ON u.id = c.user_id
            WHERE c.empresa_id = ${empresaId}
              AND regexp_replace(c.telefone, '[^0-9]', '', 'g') IN (${international}, ${international.slice(2)})
              AND u.email_verified_at IS NOT NULL AND u.password_hash IS NOT NULL
            ORDER BY c.created_at, c.id
            LIMIT 1`
          if (client === undefined) return { outcome: "no client with a verified email" } satisfies JobDone
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`referral-invite:${empresaId}:${client.user_id}`}))`
          const [recent] = yield* sql`
            SELECT 1 FROM email_messages
            WHERE empresa_id = ${empresaId} AND kind = 'referral_invite' AND payload->>'user_id' = ${client.user_id}
              AND created_at > now() - make_interval(days => ${INVITE_DAYS})`
          if (recent !== undefined) return { outcome: "invited recently" } satisfies JobDone
          yield* outbox.enqueue({
            empresaId,
            kind: "referral_invite",
            to: client.email,
            payload: { user_id: client.user_id }
          })
          return { outcome: "invited" } satisfies JobDone
        })
      ).pipe(
        Effect.catchTag("SqlError", (error) => Effect.fail(new JobFailed({ message: error.message }))),
        span("Surveys.invite")
      )

    /** A quest's responses for its empresa, newest first, by band and submission time. */
    const responses = traced("Surveys.responses")(function* (empresaId: EmpresaId, input: ListResponsesInput) {
      const [quest] = yield* sql`SELECT 1 FROM quests WHERE empresa_id = ${empresaId} AND id = ${input.quest_id}`
      if (quest === undefined) return yield* new NotFound({ resource: "Quest", id: input.quest_id })
      const filters = [
        sql`empresa_id = ${empresaId}`,
        sql`quest_id = ${input.quest_id}`,
        ...(input.band === undefined ? [] : [sql`(${sql.literal(BAND_SQL)}) = ${input.band}`]),
        ...(input.from === undefined ? [] : [sql`created_at >= ${input.from}`]),
        ...(input.to === undefined ? [] : [sql`created_at < ${input.to}`])
      ]
      const rows = yield* sql<ResponseRow>`
        SELECT ${responseColumns} FROM quest_responses WHERE ${sql.and(filters)}
        ORDER BY created_at DESC, id DESC
        LIMIT ${input.per_page} OFFSET ${(input.page - 1) * input.per_page}`
      const [count] = yield* sql<{ total: number }>`
        SELECT count(*)::int AS total FROM quest_responses WHERE ${sql.and(filters)}`
      const page: Array<QuestResponse> = rows.map((row) => ({ ...row, low_score: isLowScore(row) }))
      return pageOf(page, count?.total ?? 0, input.page, input.per_page)
    })

    return {
      ...sqlErrorsAsDefects({ active, respond, contact, responses }),
      /** The referral invitations' queue and handler. */
      inviteHandler: { queue: INVITE_QUEUE, run: invite } satisfies JobHandler
    }
  })
}) {}
