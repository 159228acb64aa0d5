import {
  companyProcedure,
  idempotentCompanyProcedure,
  refuses,
  router,
  runEffect,
  runIdempotent,
  userProcedure
} from "../trpc.js"
import { LoyaltyCards } from "./service.js"
import {
  CardDefinitions,
  CardProgress,
  CardRef,
  ClaimResult,
  ClaimRewardResult,
  CreateProgramInput,
  IssueCardInput,
  ListCardsInput,
  ListProgramsInput,
  LoyaltyCard,
  LoyaltyProgram,
  LoyaltyProgress,
  StampCardInput,
  StoreRef,
  UpdateProgramInput,
  UserCardRef
} from "./contracts.js"
import { LoyaltyPrograms } from "./programs.js"
import { UserCards } from "./user-cards.js"

const tags = ["Loyalty cards"]

/*
 * REST routing takes the first procedure whose path pattern matches, and this router is mounted
 * before `programs`: so no `/loyalty-cards/{card_id}` (one segment) route may exist here, or it
 * would capture `/loyalty-cards/programs` and `/loyalty-cards/metrics`.
 */

/** Issued cards (progress rows): `fidelis cards stamp <card_id>`. */
export const cardsRouter = router({
  list: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/loyalty-cards",
        tags,
        summary: "List loyalty cards",
        description:
          "Cards issued to clients (progress rows), newest first, as a plain array. Each `id` is the card_id to " +
          "stamp or claim. Filter by `client_id`, `program_id` and `status` (active, completed, claimed); " +
          "at most `limit` (default 100, max 500) cards, continue with `starting_after` = the last id."
      },
      tool: { name: "list_loyalty_cards", readOnly: true }
    })
    .input(ListCardsInput)
    .output(LoyaltyCard.array())
    .query(({ ctx, input }) => runEffect(ctx, LoyaltyCards.list(ctx.empresaId, input))),

  issue: companyProcedure
    .concat(refuses("NOT_FOUND", "CARD_ALREADY_ISSUED", "PROGRAM_INACTIVE"))
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/loyalty-cards",
        tags,
        summary: "Issue a loyalty card",
        description:
          "Gives a client an empty card of a program; its goal (max_stamps) is the program's stamps_required now. " +
          "Refusals: NOT_FOUND for an unknown client or program; PROGRAM_INACTIVE; " +
          "CARD_ALREADY_ISSUED when the client " +
          "already has an open (unclaimed) card of that program."
      },
      tool: { name: "issue_loyalty_card", adminOnly: true }
    })
    .input(IssueCardInput)
    .output(LoyaltyCard)
    .mutation(({ ctx, input }) => runEffect(ctx, LoyaltyCards.issue(ctx.empresaId, input))),

  stamp: idempotentCompanyProcedure
    .concat(
      refuses("NOT_FOUND", "CARD_COMPLETED", "STAMPS_EXCEED_REMAINING", "PROGRAM_INACTIVE", "IDEMPOTENCY_IN_FLIGHT")
    )
    .meta({
      openapi: {
        method: "POST",
        path: "/loyalty-cards/{card_id}/stamp",
        tags,
        summary: "Stamp a loyalty card",
        description:
          "Adds `quantity` stamps (default 1) to a client's card and returns its progress; " +
          "`completed` turns true when stamps reach max_stamps, and the reward can then be claimed. " +
          "card_id is the issued card's id (from the list of loyalty cards), not the program id. " +
          "Refusals: CARD_COMPLETED (the card is full or its reward claimed), " +
          "STAMPS_EXCEED_REMAINING (quantity is more than the card still needs: nothing is stamped), " +
          "PROGRAM_INACTIVE. " +
          "An idempotency key makes retries safe: the same key and input replay the first result."
      },
      tool: { name: "stamp_loyalty_card" }
    })
    .input(StampCardInput)
    .output(LoyaltyProgress)
    .mutation(({ ctx, input }) =>
      runIdempotent(ctx, "stamp_loyalty_card", input, LoyaltyCards.stamp(ctx.empresaId, input))
    ),

  claim: companyProcedure
    .concat(refuses("NOT_FOUND", "CARD_NOT_COMPLETED", "CARD_ALREADY_CLAIMED"))
    .meta({
      openapi: {
        method: "POST",
        path: "/loyalty-cards/{card_id}/claim",
        tags,
        summary: "Claim a loyalty card's reward",
        description:
          "Staff hand over the reward of a completed card: it becomes `claimed` and, while the program is active, " +
          "a fresh empty card of the same program opens for the next cycle (`next_card`, else null). " +
          "Refusals: CARD_NOT_COMPLETED, CARD_ALREADY_CLAIMED."
      },
      tool: { name: "claim_loyalty_card", adminOnly: true }
    })
    .input(CardRef)
    .output(ClaimResult)
    .mutation(({ ctx, input }) => runEffect(ctx, LoyaltyCards.claim(ctx.empresaId, input.card_id)))
})

/** Card definitions. */
export const programsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/loyalty-cards/programs",
        tags,
        summary: "List loyalty card programs",
        description:
          "The empresa's stamp-card programs (card definitions), oldest first, as a plain array; " +
          "`active=true|false` filters. " +
          "A program's id is not a card_id: stamp the cards the list of loyalty cards returns."
      },
      tool: { name: "list_loyalty_card_programs", readOnly: true }
    })
    .input(ListProgramsInput)
    .output(LoyaltyProgram.array())
    .query(({ ctx, input }) => runEffect(ctx, LoyaltyPrograms.list(ctx.empresaId, input))),

  create: companyProcedure
    .meta({
      successStatus: 201,
      location: "/loyalty-cards/programs/{id}",
      openapi: {
        method: "POST",
        path: "/loyalty-cards/programs",
        tags,
        summary: "Create a loyalty card program",
        description: "Defines a stamp card: its name, the stamps that complete it (1 to 100) and the reward it gives."
      },
      tool: { name: "create_loyalty_card_program", adminOnly: true }
    })
    .input(CreateProgramInput)
    .output(LoyaltyProgram)
    .mutation(({ ctx, input }) => runEffect(ctx, LoyaltyPrograms.create(ctx.empresaId, input))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/loyalty-cards/programs/{program_id}",
        tags,
        summary: "Update a loyalty card program",
        description:
          "Changes only the fields sent. A new stamps_required applies to cards issued afterwards (including the " +
          "next cycle's card); open cards keep their max_stamps. active=false pauses the program: " +
          "no new cards and no stamps, while completed cards can still be claimed."
      },
      tool: { name: "update_loyalty_card_program", retrySafe: true, adminOnly: true }
    })
    .input(UpdateProgramInput)
    .output(LoyaltyProgram)
    .mutation(({ ctx, input }) => runEffect(ctx, LoyaltyPrograms.update(ctx.empresaId, input)))
})

/** The end user's stamp cards (`/api/v1`): `card_id` is the card definition's id. */
export const userCardsRouter = router({
  definitions: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/loyalty-cards/empresa/{empresa_id}",
        tags,
        summary: "A store's stamp cards",
        description: "The store's active card definitions; each `id` is the `card_id` of progress and claim-reward."
      }
    })
    .input(StoreRef)
    .output(CardDefinitions)
    .query(({ ctx, input }) => runEffect(ctx, UserCards.definitions(input.empresa_id))),

  progress: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/loyalty-cards/progress/{card_id}",
        tags,
        summary: "The user's progress on a stamp card",
        description: "Stamps on the user's open card of this definition (0 before the store issues one)."
      }
    })
    .input(UserCardRef)
    .output(CardProgress)
    .query(({ ctx, input }) => runEffect(ctx, UserCards.progress(ctx.userId, input.card_id))),

  claimReward: userProcedure
    .concat(refuses("NOT_FOUND", "CARD_NOT_COMPLETED", "CARD_ALREADY_CLAIMED"))
    .meta({
      openapi: {
        method: "POST",
        path: "/loyalty-cards/claim-reward",
        tags,
        summary: "Claim a full stamp card's reward",
        description:
          "Claims the user's full card, opens the next cycle's card and answers a code the counter validates " +
          "like a redemption (valid for the store's redemption_validity_days)."
      }
    })
    .input(UserCardRef)
    .output(ClaimRewardResult)
    .mutation(({ ctx, input }) => runEffect(ctx, UserCards.claimReward(ctx.userId, input.card_id)))
})
