import { z } from "zod"
import { companyProcedure, refuses, router, runEffect } from "../trpc.js"
import { CreateQuestInput, ListQuestsInput, Quest, UpdateQuestInput } from "./contracts.js"
import { Quests } from "./service.js"

const tags = ["Quests"]

export const questsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/quests",
        tags,
        summary: "List quests (surveys)",
        description:
          "Every satisfaction survey of the empresa, newest first (a bare array). There is always a default " +
          "`standard_csat_nps` survey (csat 1-5, nps 0-10, optional comment), created on first need. " +
          "The public routes serve the newest custom survey that is active, public and within valid_until, " +
          "else the default."
      },
      tool: { name: "list_quests", readOnly: true }
    })
    .input(ListQuestsInput)
    .output(z.array(Quest))
    .query(({ ctx }) => runEffect(ctx, Quests.list(ctx.empresaId))),

  create: companyProcedure
    .meta({
      successStatus: 201,
      location: "/quests/{id}",
      openapi: {
        method: "POST",
        path: "/quests",
        tags,
        summary: "Create a custom quest (survey)",
        description:
          "Creates a custom survey: 1 to 20 questions in `research.fields`, each a `rating` (integer scale min..max " +
          "within 0..10, min < max) or `text`, with unique ids (the answer keys). Once active and public it becomes " +
          "the survey the public routes serve (the newest such wins). Invalid fields: VALIDATION_FAILED, naming each."
      },
      tool: { name: "create_quest", adminOnly: true }
    })
    .input(CreateQuestInput)
    .output(Quest)
    .mutation(({ ctx, input }) => runEffect(ctx, Quests.create(ctx.empresaId, input))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND", "DEFAULT_SURVEY_LOCKED"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/quests/{quest_id}",
        tags,
        summary: "Update a quest (survey)",
        description:
          "Changes only the fields sent; `research` replaces every question. The default survey keeps its " +
          "questions, validity and review flag: sending research, valid_until or cta_review_on_promoter for it is " +
          "DEFAULT_SURVEY_LOCKED (its name, description, is_public and active may change). Unknown id: NOT_FOUND."
      },
      tool: { name: "update_quest", retrySafe: true, adminOnly: true }
    })
    .input(UpdateQuestInput)
    .output(Quest)
    .mutation(({ ctx, input }) => runEffect(ctx, Quests.update(ctx.empresaId, input)))
})
