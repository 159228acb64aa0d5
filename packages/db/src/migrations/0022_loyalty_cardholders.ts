import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { rollUpOnWrite } from "../roll-up.js"

/**
 * Each client who has held a card, per program and over every program (`program_id` NULL): the
 * loyalty report's "clients with a card" counted these rows, not the distinct clients of every
 * card the tenant issued (a sort of 44,000 rows for the large tenant, a fifth of its year-long
 * report). Kept by a trigger in the cards' own transactions (roll-up.ts); insert-only, since a card
 * never changes hands and is never deleted, so the count is an index-only scan. Concurrent first
 * cards of one client meet on the unique key, and only one of them adds the row.
 */

const holders = (cards: string) => `
  INSERT INTO loyalty_cardholders (empresa_id, program_id, client_id)
  SELECT DISTINCT empresa_id, program_id, client_id FROM ${cards}
  UNION
  SELECT DISTINCT empresa_id, NULL::uuid, client_id FROM ${cards}
  ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING`

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE loyalty_cardholders (
      empresa_id  uuid NOT NULL,
      program_id  uuid,
      client_id   uuid NOT NULL
    )`
  yield* sql`
    CREATE UNIQUE INDEX loyalty_cardholders_key ON loyalty_cardholders (empresa_id, program_id, client_id)
    NULLS NOT DISTINCT`

  yield* rollUpOnWrite({ facts: "loyalty_cards", trigger: "loyalty_cardholders", rollUp: holders })
})
