import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../../errors.js"
import type { EmpresaId } from "../../ids.js"
import { inWindow, seriesWithTotal, type Within } from "../periods.js"
import { echoOf, Metrics } from "../service.js"
import type {
  NfceMetrics,
  NfceMetricsInput,
  QuestMetrics,
  QuestMetricsInput,
  ReferralMetrics,
  ReferralMetricsInput,
  ReferralPerformance,
  ReferralPerformanceInput
} from "./contracts.js"
import { traced } from "../../tracing.js"

/** How many clients `top_referrers` lists. */
const TOP_REFERRERS = 10

/** A referral's bonus points: both sides, whichever the campaign paid. */
const BONUS = "COALESCE(referrer_bonus, 0) + COALESCE(referred_bonus, 0)"

/** A rate as the contracts define it: a ratio 0..1 rounded to 4 decimals, 0 over nothing. */
const ratio = (numerator: string, denominator: string) =>
  `COALESCE(round(${numerator}::numeric / NULLIF(${denominator}, 0), 4), 0)`

/** An average rounded to `decimals`, null over nothing. */
const average = (sum: string, count: string, decimals: number) =>
  `round(${sum}::numeric / NULLIF(${count}, 0), ${decimals})`

type Counts<K extends string> = Record<K, number>

export class EngagementMetrics extends Effect.Service<EngagementMetrics>()("core/EngagementMetrics", {
  accessors: true,
  dependencies: [Metrics.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const lit = sql.literal

    /**
     * Follows the referrals made in the window (a cohort) to their outcome, so completed <= made
     * and the conversion rate is a true ratio.
     */
    const referralPerformance = traced("EngagementMetrics.referralPerformance")(function* (
      empresaId: EmpresaId,
      input: ReferralPerformanceInput
    ) {
      const clientId = input.client_id ?? null
      let clientName: string | null = null
      if (clientId !== null) {
        const [client] = yield* sql<{
          nome: string
        }>`SELECT nome FROM clients WHERE empresa_id = ${empresaId} AND id = ${clientId}`
        if (client === undefined) return yield* new NotFound({ resource: "Client", id: clientId })
        clientName = client.nome
      }
      const window = yield* metrics.window(empresaId, input.days)
      const within = inWindow(sql, window)
      const cohort = sql`
        empresa_id = ${empresaId} AND ${within(sql`created_at`)}
        ${clientId !== null ? sql`AND referrer_client_id = ${clientId}` : sql``}`
      const [totals] = yield* sql<
        Counts<
          "referrals_made" | "referrals_completed" | "referrals_pending" | "conversion_rate" | "bonus_points_paid"
        > & {
          avg_days_to_complete: number | null
        }
      >`
        SELECT made AS referrals_made, completed AS referrals_completed, made - completed AS referrals_pending,
               ${lit(ratio("completed", "made"))} AS conversion_rate,
               bonus AS bonus_points_paid, ${lit(average("seconds", "completed * 86400", 2))} AS avg_days_to_complete
        FROM (
          SELECT count(*) AS made,
                 count(*) FILTER (WHERE status = 'completed') AS completed,
                 COALESCE(sum(${lit(BONUS)}) FILTER (WHERE status = 'completed'), 0) AS bonus,
                 sum(extract(epoch FROM completed_at - created_at)) AS seconds
          FROM referrals WHERE ${cohort}
        ) t`
      const top =
        clientId !== null
          ? []
          : yield* sql<ReferralPerformance["top_referrers"][number]>`
              SELECT t.client_id, c.nome AS name, t.referrals, t.completed
              FROM (
                SELECT referrer_client_id AS client_id, count(*) AS referrals,
                       count(*) FILTER (WHERE status = 'completed') AS completed
                FROM referrals
                WHERE ${cohort} AND referrer_client_id IS NOT NULL
                GROUP BY referrer_client_id
                ORDER BY referrals DESC, completed DESC, referrer_client_id
                LIMIT ${TOP_REFERRERS}
              ) t
              JOIN clients c ON c.empresa_id = ${empresaId} AND c.id = t.client_id
              ORDER BY t.referrals DESC, t.completed DESC, t.client_id`
      return {
        client_id: clientId,
        client_name: clientName,
        ...echoOf(window),
        ...totals!,
        top_referrers: [...top]
      } satisfies ReferralPerformance
    })

    /**
     * Counts each referral event when it happened: made at created_at, completed (and its bonus
     * paid) at completed_at, so each period shows that period's activity.
     */
    const referralMetrics = traced("EngagementMetrics.referralMetrics")(function* (
      empresaId: EmpresaId,
      input: ReferralMetricsInput
    ) {
      const window = yield* metrics.window(empresaId, input.days)
      const events = (within: Within) => sql`
        SELECT 1 AS made, 0 AS completed, 0 AS bonus, campaign_id
        FROM referrals WHERE empresa_id = ${empresaId} AND ${within(sql`created_at`)}
        UNION ALL
        SELECT 0, 1, ${lit(BONUS)}, campaign_id
        FROM referrals WHERE empresa_id = ${empresaId} AND ${within(sql`completed_at`)}`
      const { total, series } = yield* seriesWithTotal<Counts<"referrals" | "completed" | "bonus_points">>(sql, {
        window,
        groupBy: input.group_by,
        facts: events,
        measures: { referrals: "sum(made)", completed: "sum(completed)", bonus_points: "sum(bonus)" },
        columns: "m.referrals AS referrals, m.completed AS completed, m.bonus_points AS bonus_points"
      })
      // Campaigns are few per empresa; the ones running in the window show even with no referrals.
      const campaigns = yield* sql<ReferralMetrics["campaigns"][number]>`
        SELECT c.id AS campaign_id, c.name,
               COALESCE(a.referrals, 0) AS referrals, COALESCE(a.completed, 0) AS completed,
               COALESCE(a.bonus_points, 0) AS bonus_points
        FROM referral_campaigns c
        LEFT JOIN (
          SELECT campaign_id, sum(made) AS referrals, sum(completed) AS completed, sum(bonus) AS bonus_points
          FROM (${events(inWindow(sql, window))}) e
          WHERE campaign_id IS NOT NULL
          GROUP BY campaign_id
        ) a ON a.campaign_id = c.id
        WHERE c.empresa_id = ${empresaId}
          AND (a.campaign_id IS NOT NULL
               OR (c.active AND c.starts_at < ${window.to} AND (c.ends_at IS NULL OR c.ends_at > ${window.from})))
        ORDER BY c.starts_at DESC, c.id DESC`
      return {
        ...echoOf(window),
        group_by: input.group_by,
        referrals: total.referrals,
        completed: total.completed,
        bonus_points: total.bonus_points,
        referrals_by_period: series,
        campaigns: [...campaigns]
      } satisfies ReferralMetrics
    })

    const questMetrics = traced("EngagementMetrics.questMetrics")(function* (
      empresaId: EmpresaId,
      input: QuestMetricsInput
    ) {
      const questId = input.quest_id ?? null
      let questName: string | null = null
      if (questId !== null) {
        const [quest] = yield* sql<{
          name: string
        }>`SELECT name FROM quests WHERE empresa_id = ${empresaId} AND id = ${questId}`
        if (quest === undefined) return yield* new NotFound({ resource: "Quest", id: questId })
        questName = quest.name
      }
      const window = yield* metrics.window(empresaId, input.days)
      type Row = Counts<
        | "responses"
        | "csat_responses"
        | "csat_1"
        | "csat_2"
        | "csat_3"
        | "csat_4"
        | "csat_5"
        | "nps_responses"
        | "promoters"
        | "passives"
        | "detractors"
        | "contacts_captured"
        | "contact_capture_rate"
        | "low_score_alerts_sent"
      > & { csat_avg: number | null; nps_score: number | null }
      const { total, series } = yield* seriesWithTotal<Row>(sql, {
        window,
        groupBy: input.group_by,
        facts: (within) => sql`
          SELECT csat, nps, (client_name IS NOT NULL OR client_phone IS NOT NULL) AS has_contact, low_score_alert_sent
          FROM quest_responses
          WHERE empresa_id = ${empresaId} AND ${within(sql`created_at`)}
          ${questId !== null ? sql`AND quest_id = ${questId}` : sql``}`,
        measures: {
          responses: "count(*)",
          csat_responses: "count(csat)",
          csat_sum: "sum(csat)",
          csat_1: "count(*) FILTER (WHERE csat = 1)",
          csat_2: "count(*) FILTER (WHERE csat = 2)",
          csat_3: "count(*) FILTER (WHERE csat = 3)",
          csat_4: "count(*) FILTER (WHERE csat = 4)",
          csat_5: "count(*) FILTER (WHERE csat = 5)",
          nps_responses: "count(nps)",
          promoters: "count(*) FILTER (WHERE nps >= 9)",
          passives: "count(*) FILTER (WHERE nps BETWEEN 7 AND 8)",
          detractors: "count(*) FILTER (WHERE nps <= 6)",
          contacts_captured: "count(*) FILTER (WHERE has_contact)",
          low_score_alerts_sent: "count(*) FILTER (WHERE low_score_alert_sent)"
        },
        columns: `
          m.responses AS responses, m.csat_responses AS csat_responses,
          ${average("m.csat_sum", "m.csat_responses", 2)} AS csat_avg,
          m.csat_1 AS csat_1, m.csat_2 AS csat_2, m.csat_3 AS csat_3, m.csat_4 AS csat_4, m.csat_5 AS csat_5,
          m.nps_responses AS nps_responses,
          ${average("100 * (m.promoters - m.detractors)", "m.nps_responses", 1)} AS nps_score,
          m.promoters AS promoters, m.passives AS passives, m.detractors AS detractors,
          m.contacts_captured AS contacts_captured,
          ${ratio("m.contacts_captured", "m.responses")} AS contact_capture_rate,
          m.low_score_alerts_sent AS low_score_alerts_sent`
      })
      return {
        quest_id: questId,
        quest_name: questName,
        ...echoOf(window),
        group_by: input.group_by,
        responses: total.responses,
        csat_responses: total.csat_responses,
        csat_avg: total.csat_avg,
        csat_distribution: [total.csat_1, total.csat_2, total.csat_3, total.csat_4, total.csat_5].map((count, i) => ({
          score: i + 1,
          count
        })),
        nps_responses: total.nps_responses,
        nps_score: total.nps_score,
        promoters: total.promoters,
        passives: total.passives,
        detractors: total.detractors,
        contacts_captured: total.contacts_captured,
        contact_capture_rate: total.contact_capture_rate,
        low_score_alerts_sent: total.low_score_alerts_sent,
        responses_by_period: series.map((p) => ({
          period: p.period,
          responses: p.responses,
          csat_avg: p.csat_avg,
          nps: p.nps_score
        }))
      } satisfies QuestMetrics
    })

    /** Invoices count in the period they were scanned; money and points only once completed. */
    const nfceMetrics = traced("EngagementMetrics.nfceMetrics")(function* (
      empresaId: EmpresaId,
      input: NfceMetricsInput
    ) {
      const window = yield* metrics.window(empresaId, input.days)
      const scanned = (within: Within) => sql`empresa_id = ${empresaId} AND ${within(sql`created_at`)}`
      type Row = Counts<
        "scanned" | "processing" | "completed" | "failed" | "total_valor" | "points_credited" | "conversion_rate"
      > & {
        avg_ticket: number | null
      }
      const { total, series } = yield* seriesWithTotal<Row>(sql, {
        window,
        groupBy: input.group_by,
        facts: (within) => sql`SELECT status, valor_total, points_credited FROM nfce_invoices WHERE ${scanned(within)}`,
        measures: {
          scanned: "count(*)",
          processing: "count(*) FILTER (WHERE status IN ('processing', 'pending'))",
          completed: "count(*) FILTER (WHERE status = 'completed')",
          failed: "count(*) FILTER (WHERE status IN ('failed', 'reversed'))",
          total_valor: "COALESCE(sum(valor_total) FILTER (WHERE status = 'completed'), 0)",
          points_credited: "COALESCE(sum(points_credited) FILTER (WHERE status = 'completed'), 0)"
        },
        columns: `
          m.scanned AS scanned, m.processing AS processing, m.completed AS completed, m.failed AS failed,
          m.total_valor AS total_valor, m.points_credited AS points_credited,
          ${ratio("m.completed", "m.scanned")} AS conversion_rate,
          ${average("m.total_valor", "m.completed", 2)} AS avg_ticket`
      })
      // Recurrence needs each client's invoice count, a grouping the series cannot share.
      const [clients] = yield* sql<
        Counts<"unique_clients" | "recurring_clients" | "recurrence_rate"> & { avg_invoices_per_client: number | null }
      >`
        SELECT clients AS unique_clients, recurring AS recurring_clients,
               ${lit(ratio("recurring", "clients"))} AS recurrence_rate,
               ${lit(average("invoices", "clients", 2))} AS avg_invoices_per_client
        FROM (
          SELECT count(*) AS clients, count(*) FILTER (WHERE n >= 2) AS recurring, sum(n) AS invoices
          FROM (
            SELECT count(*) AS n FROM nfce_invoices
            WHERE ${scanned(inWindow(sql, window))} AND status = 'completed' AND client_id IS NOT NULL
            GROUP BY client_id
          ) per_client
        ) t`
      return {
        ...echoOf(window),
        group_by: input.group_by,
        invoices_scanned: total.scanned,
        invoices_processing: total.processing,
        invoices_completed: total.completed,
        invoices_failed: total.failed,
        conversion_rate: total.conversion_rate,
        total_valor: total.total_valor,
        points_credited: total.points_credited,
        avg_ticket: total.avg_ticket,
        ...clients!,
        invoices_by_period: series.map((p) => ({
          period: p.period,
          scanned: p.scanned,
          completed: p.completed,
          total_valor: p.total_valor,
          points_credited: p.points_credited
        }))
      } satisfies NfceMetrics
    })

    return sqlErrorsAsDefects({ referralPerformance, referralMetrics, questMetrics, nfceMetrics })
  })
}) {}
