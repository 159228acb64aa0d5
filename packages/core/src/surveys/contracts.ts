import { z } from "zod"
import { Instant, PageQuery, paginated, Timestamp } from "../contracts.js"
import { EmpresaId, QuestId, ResponseId } from "../ids.js"
import { defaultSurvey, Research, SurveyType } from "../quests/contracts.js"

/**
 * The public survey routes (spec 2.5, 4.3): what a respondent's page reads and sends, with no
 * credential. Also the company's view of the responses (`quests.responses`).
 */

const EstablishmentRef = z
  .string()
  .min(1)
  .max(255)
  .describe("The establishment's public slug (id_name, e.g. padaria-sol) or its UUID")

export const ActiveSurveyInput = z.strictObject({ estabelecimento_ref: EstablishmentRef })
export type ActiveSurveyInput = z.infer<typeof ActiveSurveyInput>

export const ActiveSurvey = z
  .object({
    quest_id: QuestId,
    empresa_id: EmpresaId,
    survey_type: SurveyType,
    estabelecimento_slug: z.string().describe("The establishment's public slug (id_name)"),
    estabelecimento_nome: z.string(),
    name: z.string(),
    description: z.string(),
    research: Research,
    valid_until: Timestamp.nullable().describe("After this instant the survey is no longer served; null: no end"),
    cta_review_configured: z
      .boolean()
      .describe("Whether the establishment has a review link (url_review_avaliation) to offer promoters"),
    profile_picture: z.string().nullable().describe("The establishment's logo URL (logo_url); null when it has none"),
    primary_color: z.string().describe("The establishment's hex colour for the page (primary_color; default #2563eb)")
  })
  .meta({
    id: "ActiveSurvey",
    examples: [
      {
        quest_id: "9b2f4c1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
        survey_type: "standard_csat_nps",
        estabelecimento_slug: "padaria-sol",
        estabelecimento_nome: "Padaria Sol",
        ...defaultSurvey,
        valid_until: null,
        cta_review_configured: true,
        profile_picture: "https://padariasol.com.br/logo.png",
        primary_color: "#2563eb"
      }
    ]
  })
export type ActiveSurvey = z.infer<typeof ActiveSurvey>

/** Longest text answer kept; a comment box, not a document. */
export const TEXT_ANSWER_MAX = 2000

export const SubmitResponseInput = z
  .strictObject({
    estabelecimento_ref: EstablishmentRef,
    quest_id: QuestId.describe("The active survey's quest_id, as the active-survey route gave it"),
    response: z
      .record(z.string(), z.unknown())
      .describe(
        `Answers by field id: a rating is a whole number within its field's min..max, a text at most ` +
          `${TEXT_ANSWER_MAX} characters; an optional field may be left out, null or empty. A missing required ` +
          `answer, a wrong value or an id the survey does not have is a 400 naming the field`
      )
  })
  .meta({
    examples: [
      {
        estabelecimento_ref: "padaria-pao-dourado",
        quest_id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
        response: { nota: 5, comentario: "Atendimento rápido e muito simpático" }
      }
    ]
  })
export type SubmitResponseInput = z.infer<typeof SubmitResponseInput>

/** Which response a result is about: both steps answer with it. */
const ResponseRef = {
  response_id: ResponseId,
  quest_id: QuestId,
  empresa_id: EmpresaId,
  submitted_at: Timestamp.describe("When the response was submitted")
}

export const SubmissionResult = z
  .object({
    ...ResponseRef,
    cta_review_enabled: z
      .boolean()
      .describe(
        "Offer the review link: every score the response has is a promoter's (CSAT 5, NPS 9-10), the " +
          "establishment has a review link, and (custom surveys) the survey has cta_review_on_promoter"
      ),
    cta_review_url: z.string().nullable().describe("The review link when cta_review_enabled; otherwise null"),
    low_score_alert_sent: z
      .boolean()
      .describe("Whether a low score (CSAT <= 2 or NPS <= 6) queued an alert email to the establishment")
  })
  .meta({
    id: "SurveySubmission",
    examples: [
      {
        response_id: "3f9a1c2e-4b5d-4e6f-9a7b-8c9d0e1f2a3b",
        quest_id: "9b2f4c1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
        submitted_at: "2026-11-22T10:07:04.490Z",
        cta_review_enabled: true,
        cta_review_url: "https://g.page/r/padaria-sol/review",
        low_score_alert_sent: false
      }
    ]
  })
export type SubmissionResult = z.infer<typeof SubmissionResult>

export const SaveContactInput = z
  .strictObject({
    estabelecimento_ref: EstablishmentRef,
    response_id: ResponseId.describe("The response_id the submission returned"),
    client_name: z
      .string()
      .max(120)
      .nullable()
      .optional()
      .describe("Respondent's name, at most 120 characters; empty or null stores null; absent leaves it as it is"),
    client_phone: z
      .string()
      .max(30)
      .nullable()
      .optional()
      .describe(
        "Brazilian phone in any formatting, at most 30 characters: area code and number (10 or 11 digits), or 55 " +
          "first (12 or 13); stored as its digits. Empty, null or no digits stores null; absent leaves it as it is"
      )
  })
  .meta({
    examples: [
      {
        estabelecimento_ref: "padaria-pao-dourado",
        response_id: "9f8e7d6c-5b4a-4392-8817-06f5e4d3c2b1",
        client_name: "Carla Mendes",
        client_phone: "(31) 98888-7766"
      }
    ]
  })
export type SaveContactInput = z.infer<typeof SaveContactInput>

export const ContactResult = z
  .object({
    success: z.literal(true),
    ...ResponseRef,
    client_name: z.string().nullable(),
    client_phone: z.string().nullable().describe("Digits only, or null"),
    referral_invite: z
      .boolean()
      .describe(
        "True when this response is a promoter's (every score a promoter's: CSAT 5, NPS 9-10) and has a phone: if " +
          "the phone is that of a client of the establishment with a verified account email, the client's referral " +
          "link is emailed to that address (at most once in 30 days). Nothing about any client is ever answered " +
          "here: the response is the same whether or not the phone is a client's"
      )
  })
  .meta({
    id: "SurveyContact",
    examples: [
      {
        success: true,
        response_id: "3f9a1c2e-4b5d-4e6f-9a7b-8c9d0e1f2a3b",
        quest_id: "9b2f4c1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
        submitted_at: "2026-11-22T10:07:04.490Z",
        client_name: "Maria Souza",
        client_phone: "11912345678",
        referral_invite: true
      }
    ]
  })
export type ContactResult = z.infer<typeof ContactResult>

/** Where a response stands, by its NPS when it has one, else its CSAT. */
export const Band = z
  .enum(["promoter", "passive", "detractor"])
  .describe("By NPS when the response has one (9-10 promoter, 7-8 passive, 0-6 detractor), else by CSAT (5, 4, 1-3)")
export type Band = z.infer<typeof Band>

export const ListResponsesInput = z
  .strictObject({
    quest_id: QuestId.describe("Quest id"),
    ...PageQuery,
    band: Band.optional().describe(
      "Only responses in this band: by NPS when present (9-10 promoter, 7-8 passive, 0-6 detractor), else by " +
        "CSAT (5, 4, 1-3); responses with neither score have no band"
    ),
    from: Instant.optional().describe("Responses submitted at or after this instant (ISO 8601)"),
    to: Instant.optional().describe("Responses submitted before this instant (ISO 8601)")
  })
  .refine((i) => i.from === undefined || i.to === undefined || Date.parse(i.from) < Date.parse(i.to), {
    message: "from must be before to",
    path: ["from"]
  })
export type ListResponsesInput = z.infer<typeof ListResponsesInput>

export const QuestResponse = z
  .object({
    id: ResponseId,
    quest_id: QuestId,
    answers: z.record(z.string(), z.unknown()).describe("Answers by field id, as submitted"),
    csat: z.number().int().nullable().describe("The CSAT score (1-5), when the survey asks one"),
    nps: z.number().int().nullable().describe("The NPS score (0-10), when the survey asks one"),
    band: Band.nullable(),
    low_score: z.boolean().describe("CSAT <= 2 or NPS <= 6"),
    client_name: z.string().nullable(),
    client_phone: z.string().nullable().describe("Digits only"),
    contact_at: Timestamp.nullable().describe("When the contact was last saved"),
    cta_review_enabled: z.boolean(),
    low_score_alert_sent: z.boolean(),
    submitted_at: Timestamp
  })
  .meta({
    id: "SurveyResponse",
    examples: [
      {
        id: "3f9a1c2e-4b5d-4e6f-9a7b-8c9d0e1f2a3b",
        quest_id: "9b2f4c1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        answers: { csat: 2, nps: 4, comment: "Demorou muito" },
        csat: 2,
        nps: 4,
        band: "detractor",
        low_score: true,
        client_name: "Maria Souza",
        client_phone: "11912345678",
        contact_at: "2026-11-22T10:08:10.002Z",
        cta_review_enabled: false,
        low_score_alert_sent: false,
        submitted_at: "2026-11-22T10:07:04.490Z"
      }
    ]
  })
export type QuestResponse = z.infer<typeof QuestResponse>

export const QuestResponsePage = paginated(QuestResponse)
