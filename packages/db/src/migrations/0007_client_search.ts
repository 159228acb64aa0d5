import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trigram indexes for `list_clients?search=`: a substring match on name, email, phone or CPF
 * otherwise scans every client of the empresa (seconds at 100,000 clients).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
  yield* sql`CREATE INDEX clients_nome_trgm ON clients USING gin (lower(nome) gin_trgm_ops)`
  yield* sql`CREATE INDEX clients_email_trgm ON clients USING gin (lower(email) gin_trgm_ops)`
  yield* sql`CREATE INDEX clients_telefone_trgm ON clients USING gin (telefone gin_trgm_ops)`
  yield* sql`CREATE INDEX clients_cpf_trgm ON clients USING gin (cpf gin_trgm_ops)`
})
