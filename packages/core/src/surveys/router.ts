import { companyProcedure, deduplicatedPublicProcedure, publicProcedure, refuses, router, runEffect } from "../trpc.js"
import {
  ActiveSurvey,
  ActiveSurveyInput,
  ContactResult,
  ListResponsesInput,
  QuestResponsePage,
  SaveContactInput,
  SubmissionResult,
  SubmitResponseInput
} from "./contracts.js"
import { Surveys } from "./service.js"

const tags = ["Public surveys"]

const noKey =
  "No API key: a respondent's browser calls it. Each client address has a budget of requests per minute across " +
  "the public routes (429 with Retry-After past it)."

/**
 * The public survey routes (spec 4.3, errors per 7.2). The hosted survey page calls them from the
 * browser, and the server may call them in process to render it (`createAppCaller`, passing the
 * respondent's address as the context's `peerAddress`).
 */
export const surveysRouter = router({
  active: publicProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/quests/{estabelecimento_ref}/active",
        tags,
        summary: "Get an establishment's active survey",
        description:
          `The survey an establishment serves to respondents, by its slug (id_name) or UUID: the newest custom ` +
          `survey that is active, public and within valid_until, else the default \`standard_csat_nps\` survey ` +
          `(created on first need), with what the page needs to render it. 404 "Establishment ... not found", or ` +
          `"Active public survey of establishment ... not found" when every survey is switched off. ${noKey}`
      }
    })
    .input(ActiveSurveyInput)
    .output(ActiveSurvey)
    .query(({ ctx, input }) => runEffect(ctx, Surveys.active(input.estabelecimento_ref))),

  respond: deduplicatedPublicProcedure
    .concat(refuses("BAD_REQUEST", "NOT_FOUND", "DUPLICATE_RESPONSE"))
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/quests/{estabelecimento_ref}/{quest_id}/responses",
        tags,
        summary: "Submit a survey response",
        description:
          `Records the answers to the establishment's active survey (\`response\`: answers by field id). The ` +
          `result says whether to offer the review link: every score in the response is a promoter's (CSAT 5, ` +
          `NPS 9-10), the establishment has \`url_review_avaliation\`, and a custom survey also has ` +
          `\`cta_review_on_promoter\`; otherwise \`cta_review_enabled\` is false and \`cta_review_url\` null, ` +
          `which is no error. 400 \`{"detail": "..."}\` when the quest is not the active survey, or naming each ` +
          `missing or invalid answer; 404 unknown establishment; 409 when a response with the same ` +
          `X-Idempotency-Key was already recorded for this survey. ${noKey}`
      }
    })
    .input(SubmitResponseInput)
    .output(SubmissionResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Surveys.respond(input, ctx.idempotencyKey))),

  contact: publicProcedure
    .concat(refuses("BAD_REQUEST", "NOT_FOUND"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/quests/{estabelecimento_ref}/{response_id}/contact",
        tags,
        summary: "Save a response's contact",
        description:
          `The optional second step: the respondent's name (at most 120 characters) and Brazilian phone (at most ` +
          `30 characters, any formatting, stored as digits: area code and number, 10 or 11 digits, or 12 or 13 ` +
          `with 55). Empty values are stored as null; absent ones stay as they are. The answer never says ` +
          `whether the phone is a client's: a promoter's referral link goes by email to the matching client's own ` +
          `verified address, if any (\`referral_invite\`). 400 for a phone that ` +
          `is not a Brazilian number with a valid area code; 404 unknown establishment, or a response it does ` +
          `not have; 422 for a value over its bound (\`string_too_long\`). ${noKey}`
      }
    })
    .input(SaveContactInput)
    .output(ContactResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Surveys.contact(input)))
})

/**
 * `list_quest_responses`: the responses this area collects, under the company API's /quests (the
 * composition root mounts it beside the quests router, whose area knows nothing of responses).
 */
export const questResponsesRouter = router({
  responses: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/quests/{quest_id}/responses",
        tags: ["Quests"],
        summary: "List a quest's responses",
        description:
          "The responses to one survey, newest first (paginated), with their answers, scores, contact and " +
          "review/alert flags. Filters: `band` (by NPS when the response has one: 9-10 promoter, 7-8 passive, " +
          "0-6 detractor; else by CSAT: 5 promoter, 4 passive, 1-3 detractor), `from` (inclusive) and `to` " +
          "(exclusive) on the submission time. Unknown quest: NOT_FOUND."
      },
      tool: { name: "list_quest_responses", adminOnly: true, readOnly: true }
    })
    .input(ListResponsesInput)
    .output(QuestResponsePage)
    .query(({ ctx, input }) => runEffect(ctx, Surveys.responses(ctx.empresaId, input)))
})
