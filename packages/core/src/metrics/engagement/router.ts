import { companyProcedure, refuses, router, runEffect } from "../../trpc.js"
import {
  NfceMetrics,
  NfceMetricsInput,
  QuestMetrics,
  QuestMetricsInput,
  ReferralMetrics,
  ReferralMetricsInput,
  ReferralPerformance,
  ReferralPerformanceInput
} from "./contracts.js"
import { EngagementMetrics } from "./service.js"

const WINDOW =
  "The window is the last `days` days (1-365, default 30) including today, in the empresa's time zone: " +
  "from local midnight of the first day until now."
const SERIES =
  "`group_by` (day, week or month; default day) sets the series' periods, local calendar periods, zero-filled."
const REFUSALS = "Invalid parameters: VALIDATION_FAILED naming the field."

/** Referral, survey and NFC-e analytics (spec 4.2), under `metrics.*`. */
export const engagementMetricsRouter = router({
  referralPerformance: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/referral-performance",
        tags: ["Referrals", "Metrics"],
        summary: "Referral program performance",
        description:
          `How the referrals made in the window turned out, for the whole program or for one referrer ` +
          `(\`client_id\`): made, completed so far, pending, conversion rate (completed / made, a ratio 0..1), ` +
          `bonus points paid for the completed ones (referrer + referred) and the average days to complete; ` +
          `the whole-program view adds the top 10 referrers. ${WINDOW} ${REFUSALS} ` +
          `A client_id that is not this empresa's client: NOT_FOUND.`
      },
      tool: { name: "get_referral_performance", readOnly: true }
    })
    .input(ReferralPerformanceInput)
    .output(ReferralPerformance)
    .query(({ ctx, input }) => runEffect(ctx, EngagementMetrics.referralPerformance(ctx.empresaId, input))),

  referrals: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/referrals/metrics",
        tags: ["Referrals", "Metrics"],
        summary: "Referral activity by period",
        description:
          `Referral activity in the window, per period and per campaign: referrals made (counted when made), ` +
          `referrals completed and bonus points paid (counted when completed, whenever the referral was made). ` +
          `For the conversion of the referrals made in a window, use the referral performance report. ` +
          `${WINDOW} ${SERIES} ${REFUSALS}`
      },
      tool: { name: "get_referral_metrics", readOnly: true }
    })
    .input(ReferralMetricsInput)
    .output(ReferralMetrics)
    .query(({ ctx, input }) => runEffect(ctx, EngagementMetrics.referralMetrics(ctx.empresaId, input))),

  quests: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/quests/metrics",
        tags: ["Quests", "Metrics"],
        summary: "Survey (quest) metrics",
        description:
          `Satisfaction survey results in the window, for all quests or one (\`quest_id\`): responses; ` +
          `CSAT average (1..5) and the count per score; NPS (-100..100: % promoters 9-10 minus % detractors 0-6) ` +
          `with promoters, passives and detractors; contact capture rate (responses that left a name or phone, ` +
          `a ratio 0..1); low-score alerts sent; and a series of responses, CSAT average and NPS. ` +
          `Averages and NPS are null when nothing was answered. ${WINDOW} ${SERIES} ${REFUSALS} ` +
          `A quest_id that is not this empresa's quest: NOT_FOUND.`
      },
      tool: { name: "get_quest_metrics", readOnly: true }
    })
    .input(QuestMetricsInput)
    .output(QuestMetrics)
    .query(({ ctx, input }) => runEffect(ctx, EngagementMetrics.questMetrics(ctx.empresaId, input))),

  nfce: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/metrics",
        tags: ["NFC-e", "Metrics"],
        summary: "NFC-e invoice metrics",
        description:
          `Invoices (NFC-e QR codes) scanned in the window: volume by status (processing, completed, failed), ` +
          `conversion to points (completed / scanned, a ratio 0..1), total value (BRL) and points credited, ` +
          `average ticket, and recurrence (distinct clients with a completed invoice, those with 2 or more, ` +
          `their ratio, invoices per client), with a series by scan period. ${WINDOW} ${SERIES} ${REFUSALS}`
      },
      tool: { name: "get_nfce_metrics", readOnly: true }
    })
    .input(NfceMetricsInput)
    .output(NfceMetrics)
    .query(({ ctx, input }) => runEffect(ctx, EngagementMetrics.nfceMetrics(ctx.empresaId, input)))
})
