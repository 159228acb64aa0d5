import { companyProcedure, refuses, router, runEffect } from "../../trpc.js"
import { ClientBehaviorReport } from "./client-behavior.js"
import {
  ClientBehavior,
  ClientBehaviorInput,
  LoyaltyCardMetrics,
  LoyaltyCardMetricsInput,
  MetricsOverview,
  MetricsOverviewInput
} from "./contracts.js"
import { LoyaltyCardMetricsReport } from "./loyalty-cards.js"
import { MetricsOverviewReport } from "./overview.js"

const tags = ["Metrics"]

const WINDOW =
  "The window is the last `days` days (1 to 365, default 30) in the empresa's time zone: " +
  "from local midnight `days - 1` days ago (today included) until now; the response echoes it."

/**
 * Business analytics: `fidelis metrics overview`, `fidelis metrics loyalty-cards`,
 * `fidelis metrics client-behavior <id>`.
 */
export const businessMetricsRouter = router({
  overview: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/metrics/overview",
        tags,
        summary: "Get the metrics overview",
        description:
          `Key figures of the empresa in one object: clients (total, new, active), points (issued, spent, refunded, ` +
          `expired and the balance outstanding), coupons and reward redemptions (each transition counted when it ` +
          `happened, plus what is open now, values in BRL). ${WINDOW} Counts marked "current state" ignore the window.`
      },
      tool: { name: "get_metrics_overview", readOnly: true }
    })
    .input(MetricsOverviewInput)
    .output(MetricsOverview)
    .query(({ ctx, input }) => runEffect(ctx, MetricsOverviewReport.get(ctx.empresaId, input))),

  loyaltyCards: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/loyalty-cards/metrics",
        tags,
        summary: "Get loyalty card metrics",
        description:
          `Stamp-card performance for one program (program_id) or every program aggregated: ` +
          `cards issued and completed in the window, completion_rate (a ratio 0..1 of the cards issued in the window ` +
          `that are completed now), average days to complete, current active and near-completion cards, ` +
          `clients with and without a card, stamps and completions per day, week or month (group_by, zero-filled), ` +
          `and the top 10 clients by stamps. ${WINDOW} Refusals: NOT_FOUND for an unknown program_id.`
      },
      tool: { name: "get_loyalty_card_metrics", readOnly: true }
    })
    .input(LoyaltyCardMetricsInput)
    .output(LoyaltyCardMetrics)
    .query(({ ctx, input }) => runEffect(ctx, LoyaltyCardMetricsReport.get(ctx.empresaId, input))),

  clientBehavior: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/clients/{client_id}/behavior",
        tags: ["Clients", ...tags],
        summary: "Get a client's behavior",
        description:
          `How one client engages: visits (days with activity) and points earned per visit, points earned, spent, ` +
          `refunded and expired, coupons generated and used, referrals made and completed, ` +
          `stamps and cards completed in the window; plus the current balance, lifetime totals, open cards, ` +
          `rewards to claim and the last activity. ${WINDOW} Refusals: NOT_FOUND for an unknown client.`
      },
      tool: { name: "get_client_behavior", readOnly: true }
    })
    .input(ClientBehaviorInput)
    .output(ClientBehavior)
    .query(({ ctx, input }) => runEffect(ctx, ClientBehaviorReport.get(ctx.empresaId, input)))
})
