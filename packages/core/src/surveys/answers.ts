import type { ResearchField } from "../quests/contracts.js"
import { TEXT_ANSWER_MAX } from "./contracts.js"

/**
 * What a response's answers say: whether they fit the survey, and the scores the rules read
 * (review call-to-action, low-score alert, band). Pure functions, so every rule is one line here.
 */

/** The answers as stored: only the survey's fields, each valid, unanswered optional ones left out. */
export type Answers = Readonly<Record<string, number | string>>

/** Problems a refusal names at most; a body of a thousand unknown ids gets a short answer. */
const MAX_NAMED = 20

const isUnanswered = (value: unknown) => value === undefined || value === null || value === ""

const problemWith = (field: ResearchField, value: unknown): string | undefined => {
  if (field.type === "rating") {
    return typeof value === "number" && Number.isInteger(value) && value >= field.min && value <= field.max
      ? undefined
      : `must be a whole number from ${field.min} to ${field.max}`
  }
  if (typeof value !== "string") return "must be text"
  return value.length > TEXT_ANSWER_MAX ? `must be at most ${TEXT_ANSWER_MAX} characters` : undefined
}

/**
 * The answers that fit the survey's fields, or a message naming every field that does not (spec
 * 7.2: a 400 whose detail names the missing or invalid field), in the survey's order, then any
 * answer to a question the survey does not have.
 */
export const checkAnswers = (
  fields: ReadonlyArray<ResearchField>,
  response: Readonly<Record<string, unknown>>
): { readonly answers: Answers } | { readonly problem: string } => {
  const problems: Array<string> = []
  const answers: Record<string, number | string> = {}
  for (const field of fields) {
    const value = Object.hasOwn(response, field.id) ? response[field.id] : undefined
    if (isUnanswered(value)) {
      if (field.required) problems.push(`response.${field.id}: a required answer is missing`)
      continue
    }
    const problem = problemWith(field, value)
    if (problem === undefined) answers[field.id] = value as number | string
    else problems.push(`response.${field.id}: ${problem}`)
  }
  const known = new Set(fields.map((field) => field.id))
  for (const id of Object.keys(response)) {
    if (!known.has(id)) problems.push(`response.${id}: this survey has no such question`)
  }
  if (problems.length === 0) return { answers }
  const more = problems.length - MAX_NAMED
  const named = problems.slice(0, MAX_NAMED).join("; ")
  return { problem: `Invalid answers: ${named}${more > 0 ? `; and ${more} more` : ""}` }
}

export interface Scores {
  readonly csat: number | null
  readonly nps: number | null
}

/**
 * The CSAT and NPS a response gives: the answers to the survey's first rating on the 1-5 scale and
 * its first on the 0-10 scale (the default survey's `csat` and `nps`; a custom survey's own).
 */
export const scoresOf = (fields: ReadonlyArray<ResearchField>, answers: Answers): Scores => {
  const onScale = (min: number, max: number) => {
    const field = fields.find((f) => f.type === "rating" && f.min === min && f.max === max)
    const value = field === undefined ? undefined : answers[field.id]
    return typeof value === "number" ? value : null
  }
  return { csat: onScale(1, 5), nps: onScale(0, 10) }
}

/**
 * A promoter's response: it has a score and every score it has is a promoter's, CSAT 5 and NPS 9
 * or 10 (spec 4.3 rule 4: CSAT gives the call-to-action only for 5, NPS for 9-10). A CSAT of 4
 * beside an NPS of 10 is not one: the review link goes to clearly happy customers only.
 */
export const isPromoter = ({ csat, nps }: Scores): boolean =>
  (csat !== null || nps !== null) && (csat === null || csat === 5) && (nps === null || nps >= 9)

/** A score low enough to alert the establishment (docs/architecture.md, "Surveys and email"). */
export const isLowScore = ({ csat, nps }: Scores): boolean => (csat !== null && csat <= 2) || (nps !== null && nps <= 6)

/**
 * A stored response's band (the company list's filter): by its NPS when it has one, else by its
 * CSAT; null with neither. SQL over `quest_responses`, so a filter and the listed value agree.
 */
export const BAND_SQL = `
  CASE
    WHEN nps IS NOT NULL THEN CASE WHEN nps >= 9 THEN 'promoter' WHEN nps >= 7 THEN 'passive' ELSE 'detractor' END
    WHEN csat IS NOT NULL THEN CASE WHEN csat = 5 THEN 'promoter' WHEN csat = 4 THEN 'passive' ELSE 'detractor' END
  END`
