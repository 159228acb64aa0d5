import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Offline (contingency) NFC-e receipts wait as `pending` until the state's page or the receipt's
 * own proof confirms them, or are `reversed` (docs/decisions.md, "NFC-e: pending offline
 * receipts"). Their points stay on the receipt row until then: the ledger and `clients.balance`
 * hold spendable points only. The stores' proofs (CSC, certificate) are kept per CNPJ.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // `pending_points`: what an offline receipt will credit once confirmed (kept after a reversal, as a
  // record); `confirm_by`: when an unconfirmed one is reversed; `checks`: looks at the page so far,
  // which also orders the re-check jobs; `confirmed_by`: what confirmed a completed one;
  // `scanned_at`: the last accepted scan, which the per-user daily limit counts.
  yield* sql`ALTER TABLE nfce_invoices DROP CONSTRAINT nfce_invoices_status_check`
  yield* sql`
    ALTER TABLE nfce_invoices
      ADD CONSTRAINT nfce_invoices_status_check
        CHECK (status IN ('processing', 'pending', 'completed', 'failed', 'reversed')),
      ADD COLUMN pending_points  integer CHECK (pending_points >= 0),
      ADD COLUMN confirm_by      timestamptz,
      ADD COLUMN checks          integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
      ADD COLUMN confirmed_by    text CHECK (confirmed_by IN ('state_page', 'csc', 'signature')),
      ADD COLUMN scanned_at      timestamptz NOT NULL DEFAULT now()`
  yield* sql`UPDATE nfce_invoices SET scanned_at = created_at`
  yield* sql`CREATE INDEX nfce_invoices_pending_idx ON nfce_invoices (empresa_id, client_id) WHERE status = 'pending'`
  yield* sql`CREATE INDEX nfce_invoices_scans_idx ON nfce_invoices (user_id, empresa_id, scanned_at)`

  // A CNPJ's CSCs (a state keeps up to two active, told apart by the QR's cIdToken); the token sealed
  // with FIDELIS_SECRET_KEY (core `Secrets`), never stored in clear.
  yield* sql`
    CREATE TABLE nfce_cscs (
      empresa_id    uuid NOT NULL REFERENCES empresas (id),
      cnpj          text NOT NULL,
      csc_id        text NOT NULL CHECK (csc_id ~ '^(0|[1-9][0-9]{0,5})$'),
      token_sealed  text NOT NULL,
      token_hint    text NOT NULL,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, cnpj, csc_id)
    )`

  // The certificate whose key signs a CNPJ's v3 offline QR codes; public, so kept as sent.
  yield* sql`
    CREATE TABLE nfce_certificates (
      empresa_id   uuid NOT NULL REFERENCES empresas (id),
      cnpj         text NOT NULL,
      pem          text NOT NULL,
      subject      text NOT NULL,
      issuer       text NOT NULL,
      not_before   timestamptz NOT NULL,
      not_after    timestamptz NOT NULL,
      fingerprint  text NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, cnpj)
    )`
})
