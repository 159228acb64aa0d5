import { companyProcedure, refuses, router, runEffect } from "../trpc.js"
import { CreateRewardInput, ListRewardsInput, Reward, RewardList, RewardRef, UpdateRewardInput } from "./contracts.js"
import { Rewards } from "./service.js"

const tags = ["Rewards"]

export const rewardsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/rewards",
        tags,
        summary: "List rewards",
        description:
          "Rewards clients can redeem for points now (active, product active, not expired, stock left), " +
          "newest first, as a plain array; each carries its product's summary. `include_unavailable=true` lists " +
          "every reward, with `available` telling which are redeemable; `product_id` narrows to one product."
      },
      tool: { name: "list_rewards", readOnly: true }
    })
    .input(ListRewardsInput)
    .output(RewardList)
    .query(({ ctx, input }) => runEffect(ctx, Rewards.list(ctx.empresaId, input))),

  get: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/rewards/{reward_id}",
        tags,
        summary: "Get a reward",
        description: "One reward of the empresa, available or not, with its product's summary."
      },
      tool: { name: "get_reward", readOnly: true, adminOnly: true }
    })
    .input(RewardRef)
    .output(Reward)
    .query(({ ctx, input }) => runEffect(ctx, Rewards.get(ctx.empresaId, input.reward_id))),

  create: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      successStatus: 201,
      location: "/rewards/{id}",
      openapi: {
        method: "POST",
        path: "/rewards",
        tags,
        summary: "Create a reward",
        description:
          "Offers one of the empresa's products for redemption with points. `pontos_necessarios` defaults to the " +
          "product's points_cost; `stock`, `expires_at` (a future instant) and `per_user_limit` omitted or null " +
          "mean no limit; `cashback_value` is BRL credited per redemption. " +
          "A product id that is not this empresa's is NOT_FOUND."
      },
      tool: { name: "create_reward", adminOnly: true }
    })
    .input(CreateRewardInput)
    .output(Reward)
    .mutation(({ ctx, input }) => runEffect(ctx, Rewards.create(ctx.empresaId, input))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/rewards/{reward_id}",
        tags,
        summary: "Update a reward",
        description:
          "Changes the fields sent and keeps the others; `null` clears cashback_value, stock (unlimited), " +
          "expires_at (never) or per_user_limit (none). A new `expires_at` must be in the future; " +
          "end a reward now with `active: false`. The product cannot change: create another reward. " +
          "Returns the updated reward."
      },
      tool: { name: "update_reward", retrySafe: true, adminOnly: true }
    })
    .input(UpdateRewardInput)
    .output(Reward)
    .mutation(({ ctx, input }) => runEffect(ctx, Rewards.update(ctx.empresaId, input)))
})
