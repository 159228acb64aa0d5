import { FileBody } from "../contracts.js"
import { MAX_MONEY } from "../amounts.js"
import { MAX_POINTS } from "../amounts.js"
import { UserRewards, UserRewardsInput } from "../rewards/contracts.js"
import { RewardsForUser } from "../rewards/service.js"
import {
  companyProcedure,
  publicProcedure,
  refuses,
  router,
  runEffect,
  staffProcedure,
  userProcedure
} from "../trpc.js"
import {
  ListRedemptionsInput,
  QrInput,
  RedeemInput,
  RedeemResult,
  Redemption,
  RedemptionList,
  RedemptionRef,
  RedemptionCode,
  ValidateInput
} from "./contracts.js"
import { Redemptions } from "./service.js"

const tags = ["Redemptions"]

const VALIDATE_REFUSALS = ["NOT_FOUND", "REDEMPTION_VALIDATED", "REDEMPTION_EXPIRED", "REDEMPTION_CANCELLED"] as const

/** Only a pending redemption can be cancelled, and not a stamp card's reward. */
const CANCEL_REFUSALS = [
  "NOT_FOUND",
  "REDEMPTION_VALIDATED",
  "REDEMPTION_EXPIRED",
  "REDEMPTION_CANCELLED",
  "REDEMPTION_NOT_CANCELLABLE"
] as const

/** The counter's side (company API key; MCP for admin keys, CLI) and the QR code images. */
export const redemptionsRouter = router({
  validate: companyProcedure
    .concat(refuses(...VALIDATE_REFUSALS))
    .meta({
      openapi: {
        method: "POST",
        path: "/redemptions/validate",
        tags,
        summary: "Validate a redemption code at the counter",
        description:
          "Marks the pending redemption (a reward, an order or a stamp card's reward) with this code as delivered. " +
          "A code validated before, cancelled or past its deadline is refused with its own code " +
          "(REDEMPTION_VALIDATED, REDEMPTION_CANCELLED, REDEMPTION_EXPIRED); one of another store is NOT_FOUND."
      },
      tool: { name: "validate_redemption", adminOnly: true }
    })
    .input(ValidateInput)
    .output(Redemption)
    .mutation(({ ctx, input }) => runEffect(ctx, Redemptions.validate(ctx.empresaId, input.code))),

  cancel: companyProcedure
    .concat(refuses(...CANCEL_REFUSALS))
    .meta({
      openapi: {
        method: "POST",
        path: "/redemptions/{redemption_id}/cancel",
        tags,
        summary: "Cancel a pending redemption",
        description:
          "The points, any cashback and the stock come back in the same transaction. Only a pending redemption " +
          "can be cancelled; a stamp card's reward cannot. A balance with no room for the points (its top is " +
          `${MAX_POINTS}) is refused as invalid at \`redemption_id\`.`
      },
      tool: { name: "cancel_redemption", adminOnly: true }
    })
    .input(RedemptionRef)
    .output(Redemption)
    .mutation(({ ctx, input }) => runEffect(ctx, Redemptions.cancel(ctx.empresaId, input.redemption_id))),

  qr: publicProcedure
    .meta({
      response: { kind: "file", contentType: "image/svg+xml" },
      // Whoever holds a pending redemption's code can claim its reward at the counter.
      secretParams: ["code"],
      openapi: {
        method: "GET",
        path: "/qr/{code}.svg",
        tags,
        summary: "A redemption code's QR code",
        description: "An SVG QR code encoding the code, for the counter to scan. No key; nothing is looked up."
      }
    })
    .input(QrInput)
    .output(FileBody)
    .query(({ ctx, input }) => runEffect(ctx, Redemptions.qr(input.code)))
})

const userTags = ["Rewards"]

/** The user's side: the store's rewards, redeeming, their redemptions and cancelling one. */
export const userRedemptionsRouter = router({
  rewards: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/rewards",
        tags: userTags,
        summary: "A store's rewards, with what this user can redeem",
        description:
          "Rewards redeemable now (active, not expired, stock left), cheapest first. `user_points` is the user's " +
          "balance at the store (0 without a verified client record there); `can_redeem` adds the per-user limit."
      }
    })
    .input(UserRewardsInput)
    .output(UserRewards)
    .query(({ ctx, input }) => runEffect(ctx, RewardsForUser.atStore(ctx.userId, input.empresa_id))),

  redeem: userProcedure
    .concat(
      refuses(
        "NOT_FOUND",
        "REWARD_INACTIVE",
        "REWARD_EXPIRED",
        "OUT_OF_STOCK",
        "INSUFFICIENT_POINTS",
        "REDEMPTION_LIMIT_REACHED"
      )
    )
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/rewards/{reward_uid}/redeem",
        tags: userTags,
        summary: "Redeem a reward for points",
        description:
          "Spends the points and takes the stock in one transaction, and answers a pending redemption with an " +
          "8-character code and its QR code, valid for the store's redemption_validity_days (default 7). A reward " +
          "with cashback_value credits the store wallet's cashback balance. `quantity` × the reward's points may " +
          `not pass ${MAX_POINTS}, nor the cashback balance R$ ${MAX_MONEY.toFixed(2)}: refused as invalid at ` +
          "`quantity`."
      }
    })
    .input(RedeemInput)
    .output(RedeemResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Redemptions.redeem(ctx.userId, input))),

  list: userProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/redemptions",
        tags: userTags,
        summary: "The user's redemptions",
        description: "Newest first, every store's; `status` and `empresa_id` filter. None reads as a stale pending."
      }
    })
    .input(ListRedemptionsInput)
    .output(RedemptionList)
    .query(({ ctx, input }) => runEffect(ctx, Redemptions.list(ctx.userId, input))),

  cancel: userProcedure
    .concat(refuses(...CANCEL_REFUSALS))
    .meta({
      openapi: {
        method: "POST",
        path: "/redemptions/{redemption_id}/cancel",
        tags: userTags,
        summary: "Cancel one of the user's pending redemptions",
        description:
          "The points, any cashback and the stock come back. Another user's redemption is a 404. A balance credited " +
          `meanwhile up to its top (${MAX_POINTS} points) has no room for them: refused as invalid at ` +
          "`redemption_id`."
      }
    })
    .input(RedemptionRef)
    .output(Redemption)
    .mutation(({ ctx, input }) => runEffect(ctx, Redemptions.cancelOwn(ctx.userId, input.redemption_id)))
})

/** The same validation for staff signed in to the app: any team role (empresa_operator or higher) may do it. */
export const staffRedemptionsRouter = router({
  validate: staffProcedure("empresa_operator", { code: RedemptionCode })
    .concat(refuses(...VALIDATE_REFUSALS))
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/redemptions/validate",
        tags,
        summary: "Validate a redemption code at the counter (staff)",
        description:
          "What a cashier's app calls: marks the pending redemption with this code, at the empresa the caller " +
          "staffs, " +
          "as delivered. Needs empresa_operator or higher; `empresa_id` may be left out on one empresa's team."
      }
    })
    .output(Redemption)
    .mutation(({ ctx, input }) => runEffect(ctx, Redemptions.validate(ctx.staff.empresaId, input.code)))
})
