import { readFileSync } from "node:fs"
import { escapeHtml as e, type ActiveSurvey } from "@fidelis/core"
import { DEFAULT_BRAND, pageHtml } from "../pages/shell.js"

/**
 * The survey page's HTML (docs/architecture.md, "Surveys and email"): rendered here from the active-survey
 * record, every database value escaped; the answers and the contact go to the public REST routes
 * from page.js. Copy is pt-BR: respondents are the empresa's Brazilian customers.
 */

const STYLE = readFileSync(new URL("./page.css", import.meta.url), "utf8")
const SCRIPT = readFileSync(new URL("./page.js", import.meta.url), "utf8")

type Field = ActiveSurvey["research"]["fields"][number]
type RatingField = Extract<Field, { type: "rating" }>

/** Settings only hold #rrggbb (empresas' contract); anything else in the database falls back to the default. */
const brandOf = (color: string) => (/^#[0-9a-fA-F]{6}$/.test(color) ? color : DEFAULT_BRAND)

const range = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i)

const required = (field: Field) => (field.required ? ` <span class="note">(obrigatória)</span>` : "")

/** A CSAT-like 1..5 scale reads as stars; every other scale (NPS 0..10, custom ones) as numbered buttons. */
const isStars = (field: RatingField) => field.min === 1 && field.max === 5

const ratingField = (field: RatingField) => {
  const id = `f-${field.id}`
  const stars = isStars(field)
  const hint =
    field.min === 0 && field.max === 10
      ? `<p class="hint" id="${id}-ends">0 = nada provável · 10 = com certeza</p>`
      : ""
  const options = range(field.min, field.max)
    .map((value) => {
      const text = stars ? `${value} ${value === 1 ? "estrela" : "estrelas"}` : String(value)
      const face = stars ? `<span aria-hidden="true">★</span><span class="sr-only">${text}</span>` : text
      return (
        `<input type="radio" id="${id}-${value}" name="${e(field.id)}" value="${value}"` +
        `${field.required ? " required" : ""}><label for="${id}-${value}">${face}</label>`
      )
    })
    .join("")
  return (
    `<fieldset class="rating" data-field="${e(field.id)}" data-kind="rating"` +
    `${hint === "" ? "" : ` aria-describedby="${id}-ends"`}>` +
    `<legend>${e(field.label)}${required(field)}</legend>` +
    `<div class="${stars ? "stars" : "scale"}">${options}</div>${hint}</fieldset>`
  )
}

const textField = (field: Field) => {
  const id = `f-${field.id}`
  return (
    `<div class="text" data-field="${e(field.id)}" data-kind="text">` +
    `<label class="field-label" for="${id}">${e(field.label)}${required(field)}</label>` +
    `<textarea id="${id}" name="${e(field.id)}" rows="3"${field.required ? " required" : ""}></textarea></div>`
  )
}

const header = (storeName: string, picture: string | null) =>
  `<header class="store">` +
  (picture === null ? "" : `<img src="${e(picture)}" alt="" width="56" height="56">`) +
  `<p class="store-name">${e(storeName)}</p></header>`

/** The page a respondent opens: the survey, then (hidden until answered) the review link, contact and thanks. */
export const surveyHtml = (survey: ActiveSurvey, nonce: string): string => {
  const store = e(survey.estabelecimento_nome)
  const fields = survey.research.fields
    .map((field) => (field.type === "rating" ? ratingField(field) : textField(field)))
    .join("")
  const body =
    header(survey.estabelecimento_nome, survey.profile_picture) +
    `<main data-ref="${e(survey.estabelecimento_slug)}" data-quest="${e(survey.quest_id)}">` +
    `<section id="survey" aria-labelledby="survey-title">` +
    `<h1 id="survey-title" tabindex="-1">${e(survey.name)}</h1>` +
    (survey.description === "" ? "" : `<p>${e(survey.description)}</p>`) +
    `<form id="answers" novalidate>${fields}` +
    `<p id="answers-error" class="error" role="alert"></p>` +
    `<button type="submit">Enviar respostas</button></form></section>` +
    `<section id="after" aria-labelledby="after-title" hidden>` +
    `<h1 id="after-title" tabindex="-1">Obrigado pela resposta!</h1>` +
    `<div id="review" hidden><p>Que bom que você gostou! Conte para mais gente:</p>` +
    `<a id="review-link" class="button" target="_blank" rel="noopener noreferrer">Avaliar ${store}` +
    `<span class="sr-only"> (abre em nova aba)</span></a></div>` +
    `<form id="contact" novalidate><h2>Quer deixar seu contato?</h2>` +
    `<p>Opcional: assim ${store} pode falar com você sobre a sua resposta.</p>` +
    `<label class="field-label" for="client-name">Nome</label>` +
    `<input id="client-name" name="client_name" autocomplete="name">` +
    `<label class="field-label" for="client-phone">Telefone com DDD</label>` +
    `<p id="phone-hint" class="hint">O DDD e o número, por exemplo (11) 98765-4321.</p>` +
    `<input id="client-phone" name="client_phone" type="tel" inputmode="tel" autocomplete="tel"` +
    ` aria-describedby="phone-hint contact-error">` +
    `<p id="contact-error" class="error" role="alert"></p>` +
    `<div class="actions"><button type="submit">Enviar contato</button>` +
    `<button type="button" id="skip" class="secondary">Pular</button></div></form></section>` +
    `<section id="thanks" aria-labelledby="thanks-title" hidden>` +
    `<h1 id="thanks-title" tabindex="-1">Muito obrigado!</h1><p>Sua opinião foi registrada.</p>` +
    `<p id="referral" hidden>Quer indicar ${store} para seus amigos? Se este telefone for de um cliente com ` +
    `e-mail confirmado, o link de indicação chega nesse e-mail.</p></section>` +
    `<p id="status" class="sr-only" role="status"></p></main>`
  return pageHtml({
    title: `${survey.name} · ${survey.estabelecimento_nome}`,
    nonce,
    color: brandOf(survey.primary_color),
    style: STYLE,
    body,
    script: SCRIPT
  })
}
