import { ClientRef } from "../clients/contracts.js"
import { companyProcedure, idempotentCompanyProcedure, refuses, router, runEffect, runIdempotent } from "../trpc.js"
import { MAX_POINTS } from "../amounts.js"
import { CreditPointsInput, CreditPointsResult, PointsBalance } from "./contracts.js"
import { Points } from "./service.js"

const tags = ["Points"]

export const pointsRouter = router({
  balance: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/points/{client_id}",
        tags,
        summary: "Get a client's points balance",
        description:
          "The points the client can spend now, as the ledger's credits and spends leave them. An unknown id, " +
          "or another empresa's client, is NOT_FOUND."
      },
      tool: { name: "get_points_balance", readOnly: true }
    })
    .input(ClientRef)
    .output(PointsBalance)
    .query(({ ctx, input }) => runEffect(ctx, Points.balance(ctx.empresaId, input.client_id))),

  credit: idempotentCompanyProcedure
    .concat(refuses("NOT_FOUND", "IDEMPOTENCY_IN_FLIGHT"))
    .meta({
      openapi: {
        method: "POST",
        path: "/points/credit",
        tags,
        summary: "Credit points",
        description:
          "Adds points to a client's balance and timeline. An idempotency key makes retries safe: " +
          `the same key and input replay the first result. A balance holds at most ${MAX_POINTS} points: a credit ` +
          "past that is refused as invalid at `points`, and credits nothing."
      },
      tool: { name: "credit_points" }
    })
    .input(CreditPointsInput)
    .output(CreditPointsResult)
    .mutation(({ ctx, input }) => runIdempotent(ctx, "credit_points", input, Points.credit(ctx.empresaId, input)))
})
