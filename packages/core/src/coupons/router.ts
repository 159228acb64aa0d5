import { companyProcedure, idempotentCompanyProcedure, refuses, router, runEffect, runIdempotent } from "../trpc.js"
import { MAX_POINTS } from "../amounts.js"
import { Coupon, CouponPage, CouponRef, GenerateCouponInput, ListCouponsInput } from "./contracts.js"
import { Coupons } from "./service.js"

const tags = ["Coupons"]

export const couponsRouter = router({
  generate: idempotentCompanyProcedure
    .concat(refuses("NOT_FOUND", "INSUFFICIENT_POINTS", "OUT_OF_STOCK", "PRODUCT_INACTIVE", "IDEMPOTENCY_IN_FLIGHT"))
    .meta({
      successStatus: 201,
      location: "/coupons/{uid}",
      openapi: {
        method: "POST",
        path: "/coupons/generate",
        tags,
        summary: "Generate a coupon",
        description:
          "Spends a client's points on a coupon, with exactly one of: `points` (a coupon worth points x the " +
          "empresa's point_value in BRL; default 0.01 BRL per point) or `product_id` (a coupon for one unit of an " +
          "active, in-stock product, paid with its points_cost; valor is the product's price). " +
          "The coupon has an 8-character code (`uid`) and expires after the empresa's coupon_validity_days " +
          "(default 30). Refusals: NOT_FOUND for an unknown client or product; INSUFFICIENT_POINTS, OUT_OF_STOCK or " +
          "PRODUCT_INACTIVE, and then nothing changes. " +
          "An idempotency key makes retries safe: the same key and input replay the first result."
      },
      tool: { name: "generate_coupon" }
    })
    .input(GenerateCouponInput)
    .output(Coupon)
    .mutation(({ ctx, input }) => runIdempotent(ctx, "generate_coupon", input, Coupons.generate(ctx.empresaId, input))),

  get: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/coupons/{uid}",
        tags,
        summary: "Get a coupon",
        description:
          "One coupon by its code (case-insensitive): status active, used, expired (past expires_at) or cancelled, " +
          "its value and deadline."
      },
      tool: { name: "get_coupon", readOnly: true }
    })
    .input(CouponRef)
    .output(Coupon)
    .query(({ ctx, input }) => runEffect(ctx, Coupons.get(ctx.empresaId, input.uid))),

  use: companyProcedure
    .concat(refuses("NOT_FOUND", "COUPON_EXPIRED", "COUPON_CANCELLED"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/coupons/{uid}/use",
        tags,
        summary: "Use a coupon",
        description:
          "Marks an active coupon used (when the client redeems it at the store) and returns it in its final state. " +
          "Using a used coupon again returns it unchanged, so a retry is safe. " +
          "Refusals: COUPON_EXPIRED or COUPON_CANCELLED."
      },
      tool: { name: "use_coupon", retrySafe: true }
    })
    .input(CouponRef)
    .output(Coupon)
    .mutation(({ ctx, input }) => runEffect(ctx, Coupons.redeem(ctx.empresaId, input.uid))),

  cancel: companyProcedure
    .concat(refuses("NOT_FOUND", "COUPON_USED", "COUPON_EXPIRED"))
    .meta({
      openapi: {
        method: "POST",
        path: "/coupons/{uid}/cancel",
        tags,
        summary: "Cancel a coupon",
        description:
          "Cancels an active coupon: its points go back to the client and a product coupon's unit returns to stock. " +
          "Cancelling a cancelled coupon returns it unchanged. " +
          "Refusals: COUPON_USED or COUPON_EXPIRED (expired coupons keep their points spent); refused as " +
          "invalid at `uid` when " +
          `the client's balance has no room for the points (its top is ${MAX_POINTS}).`
      },
      tool: { name: "cancel_coupon", adminOnly: true, destructive: true }
    })
    .input(CouponRef)
    .output(Coupon)
    .mutation(({ ctx, input }) => runEffect(ctx, Coupons.cancel(ctx.empresaId, input.uid))),

  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/coupons",
        tags,
        summary: "List coupons",
        description: "The empresa's coupons, newest first, paginated; filter by `client_id` and `status`."
      },
      tool: { name: "list_coupons", adminOnly: true, readOnly: true }
    })
    .input(ListCouponsInput)
    .output(CouponPage)
    .query(({ ctx, input }) => runEffect(ctx, Coupons.list(ctx.empresaId, input)))
})
