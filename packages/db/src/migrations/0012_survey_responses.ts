import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Public survey responses (spec 4.3): the X-Idempotency-Key a respondent's page sends, and the
 * lookup that shows a promoter their referral code when their phone is a client's.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // A second response with the same key to the same survey is refused: the unique index makes
  // concurrent duplicates race in the database, where exactly one wins. Kept with the response.
  yield* sql`
    ALTER TABLE quest_responses
      ADD COLUMN idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 255)`
  yield* sql`
    CREATE UNIQUE INDEX quest_responses_idempotency_key
      ON quest_responses (empresa_id, quest_id, idempotency_key) WHERE idempotency_key IS NOT NULL`

  // Clients by their phone's digits, whatever formatting the row holds (the contact step's match).
  yield* sql`
    CREATE INDEX clients_phone_digits_idx ON clients (empresa_id, regexp_replace(telefone, '[^0-9]', '', 'g'))`
})
