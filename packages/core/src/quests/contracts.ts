import { z } from "zod"
import { Flag, Instant, Timestamp } from "../contracts.js"
import { QuestId } from "../ids.js"

export const SurveyType = z
  .enum(["standard_csat_nps", "custom"])
  .describe("standard_csat_nps: the empresa's default CSAT + NPS survey; custom: fields chosen by the empresa")

const FieldId = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, "Use 1-50 lowercase letters, digits or underscores, starting with a letter")
  .describe("Key of this field's answer in a response, unique in the survey, e.g. nps")

const fieldText = {
  label: z.string().trim().min(1).max(300).describe("Question shown to the respondent"),
  required: Flag.default(false).describe("Whether a response must answer it; default false")
}

const RatingField = z
  .strictObject({
    id: FieldId,
    type: z.literal("rating"),
    ...fieldText,
    min: z.number().int().min(0).max(10).describe("Lowest score on the scale, 0..10 (e.g. 1 for CSAT, 0 for NPS)"),
    max: z
      .number()
      .int()
      .min(1)
      .max(10)
      .describe("Highest score on the scale, 1..10, above min (e.g. 5 for CSAT, 10 for NPS)")
  })
  .refine((f) => f.min < f.max, { message: "max must be greater than min", path: ["max"] })
  .describe("A whole-number score from min to max")

const TextField = z.strictObject({ id: FieldId, type: z.literal("text"), ...fieldText }).describe("Free text")

export const ResearchField = z.discriminatedUnion("type", [RatingField, TextField])
export type ResearchField = z.infer<typeof ResearchField>

/**
 * The standard survey every empresa has (docs/architecture.md, "Surveys and email"): CSAT 1-5 and NPS 0-10,
 * both required, and an optional comment. Respondents are the empresa's Brazilian customers, so the
 * copy is Portuguese; the empresa may rename it and change the description.
 */
export const defaultSurvey = {
  name: "Pesquisa de satisfação",
  description: "Sua opinião nos ajuda a melhorar.",
  research: {
    fields: [
      { id: "csat", type: "rating", label: "Como você avalia sua experiência?", required: true, min: 1, max: 5 },
      {
        id: "nps",
        type: "rating",
        label: "De 0 a 10, o quanto você nos recomendaria a um amigo?",
        required: true,
        min: 0,
        max: 10
      },
      { id: "comment", type: "text", label: "Quer deixar um comentário?", required: false }
    ] satisfies ReadonlyArray<ResearchField>
  }
} as const

export const Research = z
  .strictObject({
    fields: z
      .array(ResearchField)
      .min(1)
      .max(20)
      .superRefine((fields, ctx) => {
        const seen = new Set<string>()
        fields.forEach((field, index) => {
          if (seen.has(field.id)) {
            ctx.addIssue({ code: "custom", message: `Duplicate field id ${field.id}`, path: [index, "id"] })
          }
          seen.add(field.id)
        })
      })
      .describe("The questions, in display order: 1 to 20, ids unique")
  })
  .describe("The survey's questions")

export const Quest = z
  .object({
    id: QuestId,
    name: z.string(),
    description: z.string(),
    survey_type: SurveyType,
    research: Research,
    valid_until: Timestamp.nullable().describe("After this instant the survey is no longer served; null: no end"),
    cta_review_on_promoter: z
      .boolean()
      .describe(
        "Custom surveys: offer the review link to promoters (CSAT 5, NPS 9-10). The standard survey always does " +
          "when the empresa has a review link"
      ),
    is_public: z.boolean().describe("Served on the public survey routes"),
    active: z.boolean().describe("Switched on; a paused survey is never served"),
    is_default: z
      .boolean()
      .describe("The empresa's standard survey, created automatically; its type and questions are fixed"),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "Quest",
    examples: [
      {
        id: "9b2f4c1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        ...defaultSurvey,
        survey_type: "standard_csat_nps",
        valid_until: null,
        cta_review_on_promoter: false,
        is_public: true,
        active: true,
        is_default: true,
        created_at: "2026-11-02T12:00:00.000Z",
        updated_at: "2026-11-02T12:00:00.000Z"
      }
    ]
  })
export type Quest = z.infer<typeof Quest>

export const ListQuestsInput = z.strictObject({})

const Name = z.string().trim().min(1).max(200)
const Description = z.string().trim().max(1000)
const ValidUntil = Instant.nullable()

export const CreateQuestInput = z
  .strictObject({
    name: Name.describe("Survey title shown to respondents"),
    description: Description.default("").describe("Intro text shown to respondents"),
    survey_type: z
      .literal(
        "custom",
        "Only custom surveys can be created; the standard survey is the default one, created automatically"
      )
      .default("custom")
      .describe("Always custom: the standard CSAT/NPS survey exists by default"),
    research: Research,
    valid_until: ValidUntil.optional().describe("Stop serving after this instant (ISO 8601); absent or null: no end"),
    cta_review_on_promoter: Flag.default(false).describe(
      "Offer the empresa's review link to promoters (CSAT 5, NPS 9-10)"
    ),
    is_public: Flag.default(true).describe("Serve it on the public survey routes"),
    active: Flag.default(true).describe("Switched on; a paused survey is never served")
  })
  .meta({
    examples: [
      {
        name: "Pesquisa de satisfação — atendimento",
        description: "Conte como foi sua visita à loja",
        research: {
          fields: [
            { id: "nota", type: "rating", label: "De 1 a 5, como foi o atendimento?", required: true, min: 1, max: 5 },
            { id: "comentario", type: "text", label: "Quer contar mais alguma coisa?" }
          ]
        },
        valid_until: "2027-06-30T23:59:59-03:00",
        cta_review_on_promoter: true,
        is_public: true,
        active: true
      }
    ]
  })
export type CreateQuestInput = z.infer<typeof CreateQuestInput>

/**
 * Absent fields stay as they are. The type never changes; the default survey's questions,
 * validity and review flag are fixed (only its name, description, is_public and active change).
 */
export const UpdateQuestInput = z
  .strictObject({
    quest_id: QuestId.describe("Quest id"),
    name: Name.optional().describe("Survey title shown to respondents"),
    description: Description.optional().describe("Intro text shown to respondents"),
    research: Research.optional().describe("Replaces every question (custom surveys only)"),
    valid_until: ValidUntil.optional().describe("ISO 8601; null: no end (custom surveys only)"),
    cta_review_on_promoter: Flag.optional().describe("Custom surveys only"),
    is_public: Flag.optional().describe("Serve it on the public survey routes"),
    active: Flag.optional().describe("Switch the survey on or off")
  })
  .meta({
    examples: [
      { quest_id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d", valid_until: "2027-09-30T23:59:59-03:00", active: false }
    ]
  })
export type UpdateQuestInput = z.infer<typeof UpdateQuestInput>
