import { z } from "zod"
import { Timestamp } from "../../contracts.js"
import { ClientId, ProgramId } from "../../ids.js"
import { Days, GroupBy } from "../contracts.js"

const EXAMPLE = {
  clientId: "18e80772-42c3-4276-ae21-37f63b69427a",
  programId: "3c9d7a51-0e2b-4f8a-b6c4-5d1e2f3a4b6c",
  from: "2026-10-24T03:00:00.000Z",
  to: "2026-11-22T14:30:00.000Z"
}

const Count = z.number().int().min(0)
const Ratio = z.number().min(0).max(1)

/** The reporting window every analytic echoes, so a reader knows exactly what was counted. */
const WindowFields = {
  period_days: z.number().int().describe("The window's length in days (the `days` parameter)"),
  from: Timestamp.describe(
    "Start of the window: local midnight (empresa's time zone) `period_days - 1` days ago, inclusive"
  ),
  to: Timestamp.describe("End of the window: the moment of the request, exclusive"),
  timezone: z.string().describe("IANA time zone of the empresa; days, weeks and months are its local calendar")
}
const windowExample = { period_days: 30, from: EXAMPLE.from, to: EXAMPLE.to, timezone: "America/Sao_Paulo" }

// Loyalty card metrics (spec 2.2 and 4.2.1)

export const LoyaltyCardMetricsInput = z.strictObject({
  program_id: ProgramId.nullable()
    .describe("Only this program (card definition); absent or null aggregates every program")
    .optional(),
  days: Days,
  group_by: GroupBy
})
export type LoyaltyCardMetricsInput = z.infer<typeof LoyaltyCardMetricsInput>

const LoyaltyStampsByPeriod = z
  .object({
    period: z
      .string()
      .describe("Local start of the period: YYYY-MM-DD for a day or a week (its Monday), YYYY-MM for a month"),
    stamps: Count.default(0).describe("Stamps given in the period (sum of each stamp's quantity)"),
    completions: Count.default(0).describe("Cards that reached their goal in the period")
  })
  .meta({ title: "LoyaltyStampsByPeriod" })

const LoyaltyTopClient = z
  .object({
    client_id: ClientId,
    name: z.string().describe("Client's name"),
    stamps_total: Count.default(0).describe("Stamps the client received in the window"),
    cards_completed: Count.default(0).describe("Cards the client completed in the window")
  })
  .meta({ title: "LoyaltyTopClient" })

export const LoyaltyCardMetrics = z
  .object({
    avg_days_to_complete: z
      .number()
      .nullable()
      .describe(
        "Average days from issue to completion of the cards completed in the window (2 decimals); null when none was"
      ),
    avg_stamps_per_active_card: z
      .number()
      .default(0)
      .describe(
        "Current state: average stamps on the cards still collecting (status active), 2 decimals; 0 when there are none"
      ),
    cards_active: Count.default(0).describe("Current state: cards collecting stamps now (status active)"),
    cards_completed: Count.default(0).describe(
      "Cards that reached their goal in the window (completed_at in the window), whether or not the reward was " +
        "claimed since"
    ),
    cards_issued: Count.default(0).describe(
      "Cards created in the window, including the fresh card a claim opens for the next cycle"
    ),
    cards_near_completion: Count.default(0).describe(
      "Current state: active cards one stamp from their goal (stamps = max_stamps - 1): the next stamp completes them"
    ),
    clients_with_card: Count.default(0).describe(
      "Current state: distinct clients holding any card (any status) of the program(s)"
    ),
    clients_without_card: Count.default(0).describe("Current state: the empresa's clients minus clients_with_card"),
    completion_rate: Ratio.default(0).describe(
      "A ratio from 0 to 1 (not a percentage), 4 decimals: the share of the cards issued in the window that are " +
        "completed now (completed or claimed); 0 when none was issued"
    ),
    period_days: z.number().int().default(30).describe("The window's length in days (the `days` parameter)"),
    program_id: ProgramId.nullable().describe("The program measured; null when every program is aggregated"),
    program_name: z.string().nullable().describe("Its name; null when every program is aggregated"),
    stamps_by_period: z
      .array(LoyaltyStampsByPeriod)
      .default([])
      .describe(
        "One item per period of the window (group_by), oldest first, periods without activity included with zeros; " +
          "the first and last periods may be partial"
      ),
    top_clients: z
      .array(LoyaltyTopClient)
      .default([])
      .describe(
        "Up to 10 clients with the most stamps in the window, most first (ties: more cards completed, then client id)"
      )
  })
  .meta({
    id: "LoyaltyCardMetrics",
    title: "LoyaltyCardMetricsResponse",
    examples: [
      {
        avg_days_to_complete: 12.5,
        avg_stamps_per_active_card: 3.42,
        cards_active: 184,
        cards_completed: 37,
        cards_issued: 96,
        cards_near_completion: 21,
        clients_with_card: 203,
        clients_without_card: 1297,
        completion_rate: 0.1875,
        period_days: 7,
        program_id: EXAMPLE.programId,
        program_name: "Cartão Café",
        stamps_by_period: [
          { period: "2026-11-16", stamps: 41, completions: 5 },
          { period: "2026-11-17", stamps: 38, completions: 4 },
          { period: "2026-11-18", stamps: 0, completions: 0 },
          { period: "2026-11-19", stamps: 52, completions: 7 },
          { period: "2026-11-20", stamps: 47, completions: 6 },
          { period: "2026-11-21", stamps: 66, completions: 9 },
          { period: "2026-11-22", stamps: 29, completions: 6 }
        ],
        top_clients: [{ client_id: EXAMPLE.clientId, name: "Ana Souza", stamps_total: 9, cards_completed: 1 }]
      }
    ]
  })
export type LoyaltyCardMetrics = z.infer<typeof LoyaltyCardMetrics>

// Overview

export const MetricsOverviewInput = z.strictObject({ days: Days })
export type MetricsOverviewInput = z.infer<typeof MetricsOverviewInput>

export const MetricsOverview = z
  .object({
    ...WindowFields,
    clients: z
      .object({
        total: Count.describe("Clients of the empresa now"),
        new: Count.describe("Clients created in the window"),
        active: Count.describe(
          "Distinct clients with any timeline event in the window: every points movement, coupon, stamp, claim, " +
            "referral or interaction writes one"
        )
      })
      .describe("Client base"),
    points: z
      .object({
        issued: Count.describe("Points credited in the window"),
        spent: Count.describe("Points spent in the window (coupons, rewards), as a positive number"),
        refunded: Count.describe("Points given back in the window by cancellations"),
        expired: Count.describe("Points that expired in the window, as a positive number"),
        adjusted: z.number().int().describe("Net manual adjustments in the window (signed)"),
        outstanding: Count.describe("Current state: points the clients hold now (sum of balances), a liability")
      })
      .describe("Points ledger: movements in the window by kind, and the balance outstanding now"),
    coupons: z
      .object({
        generated: Count.describe("Coupons generated in the window"),
        used: Count.describe("Coupons used in the window"),
        expired: Count.describe("Coupons whose deadline passed in the window without use"),
        cancelled: Count.describe("Coupons cancelled in the window (their points refunded)"),
        active: Count.describe("Current state: coupons usable now (active, not past their deadline)"),
        valor_generated: z
          .number()
          .describe("Value (BRL) of the coupons generated in the window; product coupons count their product's price"),
        valor_used: z.number().describe("Value (BRL) of the coupons used in the window")
      })
      .describe("Coupons, each transition counted when it happened"),
    redemptions: z
      .object({
        created: Count.describe("Reward redemptions made in the window"),
        validated: Count.describe("Redemptions validated (reward delivered) in the window"),
        cancelled: Count.describe("Redemptions cancelled in the window (points refunded)"),
        expired: Count.describe("Redemptions whose deadline passed in the window without validation"),
        pending: Count.describe("Current state: redemptions awaiting validation now (not past their deadline)"),
        points_spent: Count.describe(
          "Points spent on the redemptions made in the window, except those cancelled since (refunded)"
        )
      })
      .describe("Reward redemptions, each transition counted when it happened")
  })
  .meta({
    id: "MetricsOverview",
    examples: [
      {
        ...windowExample,
        clients: { total: 1500, new: 84, active: 612 },
        points: { issued: 48210, spent: 21500, refunded: 300, expired: 0, adjusted: 0, outstanding: 162940 },
        coupons: {
          generated: 120,
          used: 97,
          expired: 6,
          cancelled: 3,
          active: 41,
          valor_generated: 1840.5,
          valor_used: 1502
        },
        redemptions: { created: 58, validated: 49, cancelled: 2, expired: 3, pending: 9, points_spent: 27400 }
      }
    ]
  })
export type MetricsOverview = z.infer<typeof MetricsOverview>

// One client's behavior

export const ClientBehaviorInput = z.strictObject({
  client_id: ClientId.describe("Client id"),
  days: Days
})
export type ClientBehaviorInput = z.infer<typeof ClientBehaviorInput>

export const ClientBehavior = z
  .object({
    client_id: ClientId,
    nome: z.string().describe("Client's name"),
    client_since: Timestamp.describe("When the client joined the empresa"),
    ...WindowFields,
    last_activity_at: Timestamp.nullable().describe(
      "When the client's latest timeline event happened (any action, ever); null when there is none"
    ),
    visits: Count.describe(
      "Distinct local days (empresa's time zone) in the window with any timeline event (points movement, coupon, " +
        "stamp, claim, referral, interaction): a proxy for visits"
    ),
    avg_points_per_visit: z.number().describe("points.earned / visits, 2 decimals; 0 without visits"),
    points: z
      .object({
        earned: Count.describe("Points credited in the window"),
        spent: Count.describe("Points spent in the window, as a positive number"),
        refunded: Count.describe("Points given back in the window by cancellations"),
        expired: Count.describe("Points that expired in the window, as a positive number"),
        balance: Count.describe("Current balance"),
        total_earned: Count.describe("Lifetime points credited"),
        total_spent: Count.describe("Lifetime points spent, net of refunds")
      })
      .describe("Points: movements in the window, balance now and lifetime totals"),
    coupons: z
      .object({
        generated: Count.describe("Coupons generated in the window"),
        used: Count.describe("Coupons used in the window"),
        active: Count.describe("Current state: coupons the client can use now")
      })
      .describe("Coupons"),
    referrals: z
      .object({
        made: Count.describe("People this client referred in the window"),
        completed: Count.describe("Referrals by this client that completed (bonuses paid) in the window")
      })
      .describe("Referrals this client made (as referrer)"),
    loyalty: z
      .object({
        stamps: Count.describe("Stamps received in the window"),
        cards_completed: Count.describe("Cards completed in the window"),
        open_cards: Count.describe("Current state: cards collecting stamps now (status active)"),
        rewards_to_claim: Count.describe("Current state: completed cards whose reward has not been claimed")
      })
      .describe("Stamp cards")
  })
  .meta({
    id: "ClientBehavior",
    examples: [
      {
        client_id: EXAMPLE.clientId,
        nome: "Ana Souza",
        client_since: "2026-03-14T15:20:00.000Z",
        ...windowExample,
        last_activity_at: "2026-11-21T19:02:44.000Z",
        visits: 6,
        avg_points_per_visit: 41.67,
        points: {
          earned: 250,
          spent: 200,
          refunded: 0,
          expired: 0,
          balance: 120,
          total_earned: 1830,
          total_spent: 1710
        },
        coupons: { generated: 1, used: 1, active: 0 },
        referrals: { made: 2, completed: 1 },
        loyalty: { stamps: 5, cards_completed: 0, open_cards: 1, rewards_to_claim: 0 }
      }
    ]
  })
export type ClientBehavior = z.infer<typeof ClientBehavior>
