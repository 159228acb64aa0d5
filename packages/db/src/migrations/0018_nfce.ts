import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * NFC-e scans (issue 16): the CNPJs that select an empresa from an invoice's access key, and the
 * scan tasks in `nfce_invoices` (0008, which metrics already read).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // An empresa may issue from several CNPJs (one per shop); a CNPJ belongs to one empresa only, or a
  // receipt could credit at two. Letters in the first 12 positions: the alphanumeric CNPJ (July 2026).
  yield* sql`
    CREATE TABLE empresa_cnpjs (
      cnpj        text PRIMARY KEY CHECK (cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
      empresa_id  uuid NOT NULL REFERENCES empresas (id),
      created_at  timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX empresa_cnpjs_empresa_idx ON empresa_cnpjs (empresa_id)`

  // The key's issuer may hold letters now; `qr`: the decoded QR the task consults (the port's input);
  // `attempts`: the state consultations tried.
  yield* sql`ALTER TABLE nfce_invoices DROP CONSTRAINT nfce_invoices_access_key_check`
  yield* sql`
    ALTER TABLE nfce_invoices
      ADD CONSTRAINT nfce_invoices_access_key_check CHECK (access_key ~ '^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$'),
      ADD COLUMN qr          jsonb,
      ADD COLUMN attempts    integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      ADD COLUMN updated_at  timestamptz NOT NULL DEFAULT now()`
  yield* sql`CREATE INDEX nfce_invoices_user_idx ON nfce_invoices (user_id, created_at)`
})
