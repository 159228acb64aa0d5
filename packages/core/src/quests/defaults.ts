import type { ResearchField } from "./contracts.js"

/**
 * The standard survey every empresa has (design.md, "Surveys and email"): CSAT 1-5 and NPS 0-10,
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
