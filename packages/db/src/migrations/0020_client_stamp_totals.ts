import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { rollUpOnWrite } from "../roll-up.js"

/**
 * Each client's lifetime stamps, per program and over every program (`program_id` NULL): the
 * upper bound of what the client can have stamped in any window, from which the loyalty-card
 * report ranks its top clients over a long window without grouping every stamp of it by client
 * (decisions: "Year-long analytics: the top clients from lifetime totals").
 *
 * Kept like the hourly rollups (0019), by statement-level triggers in the stamps' own
 * transactions, so a report reads them in the same snapshot as the stamps. One row per client
 * (and program): concurrent stamps of one client already serialize on its card's row, so no
 * striping; the upsert takes its rows in key order, so two statements never wait on each other's
 * rows in opposite orders.
 */

const totalsRollUp = (facts: string) => `
  INSERT INTO loyalty_client_stamps AS t (empresa_id, program_id, client_id, stamps)
  SELECT empresa_id, program_id, client_id, sum(quantity)
  FROM ${facts}
  GROUP BY GROUPING SETS ((empresa_id, program_id, client_id), (empresa_id, client_id))
  ORDER BY 1, 2, 3
  ON CONFLICT (empresa_id, program_id, client_id) DO UPDATE SET stamps = t.stamps + EXCLUDED.stamps`

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE loyalty_client_stamps (
      empresa_id  uuid NOT NULL,
      program_id  uuid,
      client_id   uuid NOT NULL,
      stamps      bigint NOT NULL
    )`
  yield* sql`
    CREATE UNIQUE INDEX loyalty_client_stamps_key ON loyalty_client_stamps (empresa_id, program_id, client_id)
    NULLS NOT DISTINCT`
  // The ranking's: a program's clients, or every program's, highest total first. Two partial
  // indexes, because the planner reads `program_id IS NULL` as a filter, not as a key fixed to one
  // value, and so would sort the whole tenant's rows rather than follow (program_id, stamps DESC).
  yield* sql`
    CREATE INDEX loyalty_client_stamps_ranking_idx ON loyalty_client_stamps (empresa_id, program_id, stamps DESC)
    INCLUDE (client_id) WHERE program_id IS NOT NULL`
  yield* sql`
    CREATE INDEX loyalty_client_stamps_all_ranking_idx ON loyalty_client_stamps (empresa_id, stamps DESC)
    INCLUDE (client_id) WHERE program_id IS NULL`

  // One client's stamps in a window, for one program too, as an index-only range: the ranking
  // reads its candidates' stamps through it.
  yield* sql`DROP INDEX loyalty_stamps_client_idx`
  yield* sql`
    CREATE INDEX loyalty_stamps_client_idx ON loyalty_stamps (empresa_id, client_id, created_at)
    INCLUDE (program_id, quantity)`

  yield* rollUpOnWrite({
    facts: "loyalty_stamps",
    trigger: "loyalty_stamps_client_totals",
    rollUp: totalsRollUp,
    moves: { keys: "empresa_id, program_id, client_id", measure: "quantity" }
  })
})
