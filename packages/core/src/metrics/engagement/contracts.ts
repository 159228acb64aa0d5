import { z } from "zod"
import { Timestamp } from "../../contracts.js"
import { CampaignId, ClientId, QuestId } from "../../ids.js"
import { Days, GroupBy, SeriesInput } from "../contracts.js"

/**
 * Engagement analytics: referrals, surveys (quests) and NFC-e invoices. Conventions shared by
 * every response: counts are integers; rates are ratios 0..1 (0 when nothing was counted); averages
 * are null when there is nothing to average; money is BRL; the window is echoed.
 */

const Rate = z.number().min(0).max(1)
const Count = z.number().int().min(0)

const windowEcho = {
  period_days: z.number().int().describe("Length of the window in days, as requested (`days`)"),
  from: Timestamp.describe(
    "Start of the window, inclusive: local midnight (in `timezone`) of the first day; " +
      "the window covers today and the period_days - 1 days before it"
  ),
  to: Timestamp.describe("End of the window, exclusive: the moment the metrics were computed"),
  timezone: z
    .string()
    .describe(
      "The empresa's IANA time zone (setting `timezone`, default America/Sao_Paulo); " +
        "days, weeks and months are its local calendar periods"
    )
}

const groupByEcho = {
  group_by: z.enum(["day", "week", "month"]).describe("Grouping of the series, as requested")
}

/**
 * An optional id filter: absent or null means "all". Described on both levels: the REST document
 * reads the inner schema of a query parameter, MCP the outer one.
 */
const OptionalId = <Id extends z.ZodType>(id: Id, description: string) =>
  id.describe(description).nullish().describe(description)

const PeriodLabel = z
  .string()
  .describe(
    "Local start of the period: YYYY-MM-DD for day and week (weeks start on Monday), YYYY-MM for month. " +
      "The first and last periods may be cut by the window"
  )

// ---------------------------------------------------------------- referral performance

export const ReferralPerformanceInput = z.strictObject({
  client_id: OptionalId(
    ClientId,
    "Only referrals made by this client (the referrer), a UUID; omit (or null) for the whole program. " +
      "Another empresa's client: NOT_FOUND"
  ),
  days: Days
})
export type ReferralPerformanceInput = z.infer<typeof ReferralPerformanceInput>

const TopReferrer = z.object({
  client_id: ClientId.describe("The referrer client"),
  name: z.string().describe("The client's name (nome)"),
  referrals: Count.describe("Referrals this client made in the window"),
  completed: Count.describe("Of those, how many have completed")
})

export const ReferralPerformance = z
  .object({
    client_id: ClientId.nullable().describe("The referrer the figures are restricted to; null for the whole program"),
    client_name: z.string().nullable().describe("That client's name; null for the whole program"),
    ...windowEcho,
    referrals_made: Count.describe("Referrals made (created) in the window"),
    referrals_completed: Count.describe(
      "Of the referrals made in the window, those completed so far (the referred person earned points at a running " +
        "campaign and both sides got the bonuses)"
    ),
    referrals_pending: Count.describe(
      "Of the referrals made in the window, those not completed yet (made - completed)"
    ),
    conversion_rate: Rate.describe(
      "referrals_completed / referrals_made as a ratio 0..1 (0.25 = 25%), 4 decimals; 0 when none were made"
    ),
    bonus_points_paid: Count.describe("Points paid as bonuses for the completed ones: referrer bonus + referred bonus"),
    avg_days_to_complete: z
      .number()
      .nullable()
      .describe(
        "Average days from referral to completion over the completed ones (fractional, 2 decimals); " +
          "null when none completed"
      ),
    top_referrers: z
      .array(TopReferrer)
      .describe(
        "Whole-program mode only (empty when client_id is given): up to 10 clients with the most referrals made in " +
          "the window, most referrals first, then most completed"
      )
  })
  .meta({
    id: "ReferralPerformance",
    examples: [
      {
        client_id: null,
        client_name: null,
        period_days: 30,
        from: "2026-10-24T03:00:00.000Z",
        to: "2026-11-22T14:05:11.318Z",
        timezone: "America/Sao_Paulo",
        referrals_made: 40,
        referrals_completed: 10,
        referrals_pending: 30,
        conversion_rate: 0.25,
        bonus_points_paid: 1500,
        avg_days_to_complete: 3.42,
        top_referrers: [
          { client_id: "18e80772-42c3-4276-ae21-37f63b69427a", name: "Maria Souza", referrals: 6, completed: 3 }
        ]
      }
    ]
  })
export type ReferralPerformance = z.infer<typeof ReferralPerformance>

// ---------------------------------------------------------------- referral metrics by period

export const ReferralMetricsInput = SeriesInput
export type ReferralMetricsInput = z.infer<typeof ReferralMetricsInput>

const ReferralPeriod = z.object({
  period: PeriodLabel,
  referrals: Count.describe("Referrals made in the period"),
  completed: Count.describe("Referrals completed in the period (whenever they were made)"),
  bonus_points: Count.describe(
    "Bonus points paid in the period (referrer + referred bonus of the referrals completed in it)"
  )
})

const ReferralCampaignBreakdown = z.object({
  campaign_id: CampaignId,
  name: z.string(),
  referrals: Count.describe("Referrals made in the window attributed to this campaign"),
  completed: Count.describe("Referrals of this campaign completed in the window"),
  bonus_points: Count.describe("Bonus points this campaign paid in the window")
})

export const ReferralMetrics = z
  .object({
    ...windowEcho,
    ...groupByEcho,
    referrals: Count.describe("Referrals made in the window"),
    completed: Count.describe(
      "Referrals completed in the window, whenever they were made " +
        "(a cohort's conversion: the referral performance report)"
    ),
    bonus_points: Count.describe("Bonus points paid in the window (referrer + referred bonus of each completion)"),
    referrals_by_period: z
      .array(ReferralPeriod)
      .describe("One item per period of the window, oldest first, zero-filled"),
    campaigns: z
      .array(ReferralCampaignBreakdown)
      .describe(
        "Campaigns that were active during the window or have referrals in it, newest start first. " +
          "Referrals with no campaign count in the totals only"
      )
  })
  .meta({
    id: "ReferralMetrics",
    examples: [
      {
        period_days: 7,
        from: "2026-11-16T03:00:00.000Z",
        to: "2026-11-22T14:05:11.318Z",
        timezone: "America/Sao_Paulo",
        group_by: "day",
        referrals: 5,
        completed: 2,
        bonus_points: 300,
        referrals_by_period: [
          { period: "2026-11-16", referrals: 1, completed: 0, bonus_points: 0 },
          { period: "2026-11-17", referrals: 3, completed: 1, bonus_points: 150 },
          { period: "2026-11-18", referrals: 0, completed: 0, bonus_points: 0 },
          { period: "2026-11-19", referrals: 0, completed: 0, bonus_points: 0 },
          { period: "2026-11-20", referrals: 1, completed: 1, bonus_points: 150 },
          { period: "2026-11-21", referrals: 0, completed: 0, bonus_points: 0 },
          { period: "2026-11-22", referrals: 0, completed: 0, bonus_points: 0 }
        ],
        campaigns: [
          {
            campaign_id: "5d7c2a8e-1b3f-4c6d-9e0a-2f4b6c8d0e1a",
            name: "Indique e ganhe",
            referrals: 5,
            completed: 2,
            bonus_points: 300
          }
        ]
      }
    ]
  })
export type ReferralMetrics = z.infer<typeof ReferralMetrics>

// ---------------------------------------------------------------- quest (survey) metrics

export const QuestMetricsInput = z.strictObject({
  quest_id: OptionalId(
    QuestId,
    "Only responses to this quest (survey), a UUID; omit (or null) for all of them. Another empresa's quest: NOT_FOUND"
  ),
  days: Days,
  group_by: GroupBy
})
export type QuestMetricsInput = z.infer<typeof QuestMetricsInput>

const CsatAverage = z.number().nullable().describe("Average CSAT score, 1..5 (2 decimals); null without CSAT answers")
const NpsScore = z
  .number()
  .nullable()
  .describe(
    "Net Promoter Score, -100..100 (1 decimal): % promoters (9-10) minus % detractors (0-6) of the NPS answers; " +
      "null without NPS answers"
  )

const QuestPeriod = z.object({
  period: PeriodLabel,
  responses: Count.describe("Responses submitted in the period"),
  csat_avg: CsatAverage,
  nps: NpsScore
})

const CsatScoreCount = z.object({
  score: z.number().int().min(1).max(5).describe("CSAT score"),
  count: Count.describe("Responses with that score")
})

export const QuestMetrics = z
  .object({
    quest_id: QuestId.nullable().describe("The quest the figures are restricted to; null for all quests"),
    quest_name: z.string().nullable().describe("That quest's name; null for all quests"),
    ...windowEcho,
    ...groupByEcho,
    responses: Count.describe("Responses submitted in the window"),
    csat_responses: Count.describe("Responses with a CSAT answer (1..5)"),
    csat_avg: CsatAverage,
    csat_distribution: z
      .array(CsatScoreCount)
      .length(5)
      .describe("Responses per CSAT score, scores 1 to 5 in order, zero-filled"),
    nps_responses: Count.describe("Responses with an NPS answer (0..10)"),
    nps_score: NpsScore,
    promoters: Count.describe("NPS answers 9 or 10"),
    passives: Count.describe("NPS answers 7 or 8"),
    detractors: Count.describe("NPS answers 0 to 6"),
    contacts_captured: Count.describe("Responses that left a contact (a name or a phone)"),
    contact_capture_rate: Rate.describe(
      "contacts_captured / responses as a ratio 0..1, 4 decimals; 0 without responses"
    ),
    low_score_alerts_sent: Count.describe(
      "Responses whose low score (CSAT <= 2 or NPS <= 6) sent the empresa an alert"
    ),
    responses_by_period: z.array(QuestPeriod).describe("One item per period of the window, oldest first, zero-filled")
  })
  .meta({
    id: "QuestMetrics",
    examples: [
      {
        quest_id: null,
        quest_name: null,
        period_days: 30,
        from: "2026-10-24T03:00:00.000Z",
        to: "2026-11-22T14:05:11.318Z",
        timezone: "America/Sao_Paulo",
        group_by: "month",
        responses: 120,
        csat_responses: 118,
        csat_avg: 4.31,
        csat_distribution: [
          { score: 1, count: 4 },
          { score: 2, count: 6 },
          { score: 3, count: 10 },
          { score: 4, count: 28 },
          { score: 5, count: 70 }
        ],
        nps_responses: 115,
        nps_score: 47.8,
        promoters: 70,
        passives: 30,
        detractors: 15,
        contacts_captured: 42,
        contact_capture_rate: 0.35,
        low_score_alerts_sent: 19,
        responses_by_period: [
          { period: "2026-10", responses: 31, csat_avg: 4.1, nps: 38.7 },
          { period: "2026-11", responses: 89, csat_avg: 4.38, nps: 51.2 }
        ]
      }
    ]
  })
export type QuestMetrics = z.infer<typeof QuestMetrics>

// ---------------------------------------------------------------- NFC-e metrics

export const NfceMetricsInput = SeriesInput
export type NfceMetricsInput = z.infer<typeof NfceMetricsInput>

const NfcePeriod = z.object({
  period: PeriodLabel,
  scanned: Count.describe("Invoices scanned in the period"),
  completed: Count.describe("Of those, invoices processed and credited"),
  total_valor: z.number().describe("Sum of the completed invoices' totals, BRL"),
  points_credited: Count.describe("Points credited for the completed invoices")
})

export const NfceMetrics = z
  .object({
    ...windowEcho,
    ...groupByEcho,
    invoices_scanned: Count.describe("Invoices (NFC-e QR codes) scanned in the window, in any status"),
    invoices_processing: Count.describe(
      "Of those, still being processed, offline receipts pending confirmation included"
    ),
    invoices_completed: Count.describe("Of those, processed and credited"),
    invoices_failed: Count.describe("Of those, refused or failed, offline receipts reversed unconfirmed included"),
    conversion_rate: Rate.describe(
      "invoices_completed / invoices_scanned as a ratio 0..1, 4 decimals; 0 when none were scanned"
    ),
    total_valor: z.number().describe("Sum of the completed invoices' totals (valor_total), BRL"),
    points_credited: Count.describe("Points credited for the completed invoices"),
    avg_ticket: z
      .number()
      .nullable()
      .describe("total_valor / invoices_completed, BRL (2 decimals); null when none completed"),
    unique_clients: Count.describe("Distinct clients with at least one completed invoice in the window"),
    recurring_clients: Count.describe("Of those, clients with 2 or more completed invoices in the window"),
    recurrence_rate: Rate.describe("recurring_clients / unique_clients as a ratio 0..1, 4 decimals; 0 without clients"),
    avg_invoices_per_client: z
      .number()
      .nullable()
      .describe(
        "Average completed invoices per client: those clients' completed invoices / unique_clients (2 decimals); " +
          "null without clients"
      ),
    invoices_by_period: z
      .array(NfcePeriod)
      .describe("One item per period of the window (by scan time), oldest first, zero-filled")
  })
  .meta({
    id: "NfceMetrics",
    examples: [
      {
        period_days: 14,
        from: "2026-11-09T03:00:00.000Z",
        to: "2026-11-22T14:05:11.318Z",
        timezone: "America/Sao_Paulo",
        group_by: "week",
        invoices_scanned: 50,
        invoices_processing: 1,
        invoices_completed: 45,
        invoices_failed: 4,
        conversion_rate: 0.9,
        total_valor: 3812.4,
        points_credited: 3790,
        avg_ticket: 84.72,
        unique_clients: 30,
        recurring_clients: 9,
        recurrence_rate: 0.3,
        avg_invoices_per_client: 1.5,
        invoices_by_period: [
          { period: "2026-11-09", scanned: 22, completed: 20, total_valor: 1700.15, points_credited: 1690 },
          { period: "2026-11-16", scanned: 28, completed: 25, total_valor: 2112.25, points_credited: 2100 }
        ]
      }
    ]
  })
export type NfceMetrics = z.infer<typeof NfceMetrics>
