import type { SqlClient, Statement } from "@effect/sql"
import type { EmpresaId, ProgramId } from "../../ids.js"
import type { Within } from "../periods.js"
import type { LoyaltyCardMetrics } from "./contracts.js"

const TOP_CLIENTS = 10

/**
 * What probing one candidate costs (its stamps in the window and its completed cards, two index
 * descents) in stamps of the window grouped by client instead: the ranking probes candidates
 * while they cost less than grouping the window's stamps.
 */
const PROBE_COST = 4

/**
 * The clients with the most stamps in a window, most first (ties: more cards completed in it, then
 * client id), from `program_id`'s stamps or every program's.
 *
 * Over a long window, grouping its stamps by client reads every stamp (300,000 a year for the
 * large tenant) to keep ten. Instead: a client's lifetime stamps (`loyalty_client_stamps`, 0020)
 * bound what they stamped in any window, so the ten highest lifetime totals, probed for their
 * window's stamps, give a floor the tenth of the ranking reaches; only the clients whose lifetime
 * reaches it can be in the ranking, and only they are probed. When the floor is low (a short
 * window, whose leaders stamped little in it) and the candidates would cost more than the window's
 * stamps, the window's stamps are grouped as before. Either way the ranking is exactly the facts',
 * read in one statement, so from one snapshot.
 */
export const topClients = (
  sql: SqlClient.SqlClient,
  empresaId: EmpresaId,
  programId: ProgramId | null,
  within: Within
) => {
  const ofProgram = programId === null ? sql`` : sql`AND program_id = ${programId}`
  const totals = programId === null ? sql`program_id IS NULL` : sql`program_id = ${programId}`
  const created = within(sql`created_at`)
  const completed = within(sql`completed_at`)
  const stampsOf = (client: Statement.Fragment) => sql`
    SELECT sum(quantity) AS stamps_total FROM loyalty_stamps
    WHERE empresa_id = ${empresaId} AND client_id = ${client} ${ofProgram} AND ${created}`
  // More candidates than the branch by totals probes: so counting them stops early, and the
  // branch, limited to it (which drops none, the count being below), follows the ranking index
  // rather than scanning the tenant's totals for a threshold the planner cannot know.
  const candidatesAtMost = sql`(SELECT stamps / ${PROBE_COST} + 1 FROM volume)`
  const ranking = sql`ORDER BY stamps_total DESC, cards_completed DESC, client_id LIMIT ${TOP_CLIENTS}`

  // `by_totals` gates each branch as a one-time filter: the branch not taken is never executed.
  return sql<LoyaltyCardMetrics["top_clients"][number]>`
    WITH leaders AS (
      SELECT coalesce(w.stamps_total, 0) AS stamps
      FROM (SELECT client_id FROM loyalty_client_stamps WHERE empresa_id = ${empresaId} AND ${totals}
            ORDER BY stamps DESC LIMIT ${TOP_CLIENTS}) b,
           LATERAL (${stampsOf(sql`b.client_id`)}) w
    ), threshold AS (
      SELECT CASE WHEN count(*) = ${TOP_CLIENTS} THEN greatest(min(stamps), 1) ELSE 1 END AS stamps FROM leaders
    ), volume AS (
      SELECT coalesce(sum(stamps), 0) AS stamps FROM loyalty_stamps_hourly
      WHERE empresa_id = ${empresaId} ${ofProgram}
        AND hour >= date_trunc('hour', ${within.starts}, 'UTC') AND hour < ${within.ends}
    ), plan AS (
      SELECT t.stamps AS threshold,
             (SELECT count(*) FROM (SELECT FROM loyalty_client_stamps
                                    WHERE empresa_id = ${empresaId} AND ${totals} AND stamps >= t.stamps
                                    LIMIT ${candidatesAtMost}) c)
               <= (SELECT stamps / ${PROBE_COST} FROM volume) AS by_totals
      FROM threshold t
    ), ranked AS (
      (SELECT b.client_id, w.stamps_total, d.cards_completed
       FROM (SELECT client_id FROM loyalty_client_stamps
             WHERE (SELECT by_totals FROM plan) AND empresa_id = ${empresaId} AND ${totals}
               AND stamps >= (SELECT threshold FROM plan)
             ORDER BY stamps DESC LIMIT ${candidatesAtMost}) b,
            LATERAL (${stampsOf(sql`b.client_id`)}) w,
            LATERAL (SELECT count(*) AS cards_completed FROM loyalty_cards
                     WHERE empresa_id = ${empresaId} AND client_id = b.client_id ${ofProgram} AND ${completed}) d
       WHERE w.stamps_total IS NOT NULL
       ${ranking})
      UNION ALL
      (SELECT s.client_id, s.stamps_total, coalesce(d.cards_completed, 0) AS cards_completed
       FROM (SELECT client_id, sum(quantity) AS stamps_total FROM loyalty_stamps
             WHERE NOT (SELECT by_totals FROM plan) AND empresa_id = ${empresaId} ${ofProgram} AND ${created}
             GROUP BY client_id) s
       LEFT JOIN (SELECT client_id, count(*) AS cards_completed FROM loyalty_cards
                  WHERE NOT (SELECT by_totals FROM plan) AND empresa_id = ${empresaId} ${ofProgram} AND ${completed}
                  GROUP BY client_id) d
         ON d.client_id = s.client_id
       ${ranking})
    )
    SELECT r.client_id, c.nome AS name, r.stamps_total::bigint AS stamps_total,
           r.cards_completed::bigint AS cards_completed
    FROM ranked r JOIN clients c ON c.empresa_id = ${empresaId} AND c.id = r.client_id
    ORDER BY r.stamps_total DESC, r.cards_completed DESC, r.client_id`
}
