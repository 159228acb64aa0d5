import { Effect } from "effect"
import { ClientRef } from "../clients/contracts.js"
import { Idempotency } from "../idempotency/service.js"
import { companyProcedure, idempotentCompanyProcedure, markReplay, router, runEffect } from "../trpc.js"
import { CreditPointsInput, CreditPointsResult, PointsBalance } from "./contracts.js"
import { Points } from "./service.js"

const tags = ["Points"]

export const pointsRouter = router({
  balance: companyProcedure
    .meta({
      openapi: { method: "GET", path: "/points/{client_id}", tags, summary: "Get a client's points balance" },
      tool: { name: "get_points_balance", readOnly: true }
    })
    .input(ClientRef)
    .output(PointsBalance)
    .query(({ ctx, input }) => runEffect(ctx, Points.balance(ctx.empresaId, input.client_id))),

  credit: idempotentCompanyProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/points/credit",
        tags,
        summary: "Credit points",
        description:
          "Adds points to a client's balance and timeline. Send X-Idempotency-Key to make retries safe: the same key and body replay the first response."
      },
      tool: { name: "credit_points" }
    })
    .input(CreditPointsInput)
    .output(CreditPointsResult)
    .mutation(async ({ ctx, input }) => {
      const { value, replayed } = await runEffect(
        ctx,
        Effect.flatMap(Idempotency, (idempotency) =>
          idempotency.once(
            { empresaId: ctx.empresaId, operation: "credit_points", key: ctx.idempotencyKey, request: input },
            Points.credit(ctx.empresaId, input)
          )
        )
      )
      markReplay(ctx, replayed)
      return value
    })
})
