import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One owner per CNPJ (docs/decisions.md, "CNPJ claims (security review 2, item 9)"). A CNPJ reaches
 * an empresa two ways, its profile (`empresas.cnpj`) and its NFC-e registrations (`empresa_cnpjs`),
 * and each table was unique on its own only: an admin could set as B's profile the CNPJ A had
 * registered. `cnpj_claims` holds every CNPJ either way names, keyed by the CNPJ, and triggers on
 * both tables keep it in the writing transaction, so whatever writes them, two empresas' claims of
 * one CNPJ meet on its primary key and the second fails. A claim also says whether it is proven:
 * receipts of an unproven one credit nobody.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // `proven_by`: `profile` when an admin set it as the empresa's profile CNPJ, `admin` when an admin
  // proved a registration; null until then.
  yield* sql`
    CREATE TABLE cnpj_claims (
      cnpj        text PRIMARY KEY CHECK (cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
      empresa_id  uuid NOT NULL REFERENCES empresas (id),
      proven_by   text CHECK (proven_by IN ('profile', 'admin')),
      proven_at   timestamptz,
      created_at  timestamptz NOT NULL DEFAULT now(),
      CHECK ((proven_by IS NULL) = (proven_at IS NULL))
    )`
  yield* sql`CREATE INDEX cnpj_claims_empresa_idx ON cnpj_claims (empresa_id)`
  yield* sql`CREATE INDEX cnpj_claims_unproven_idx ON cnpj_claims (created_at) WHERE proven_by IS NULL`

  // Makes the claims table agree with what names `cnpj` for `empresa`: a claim while its profile or
  // a registration does (proven at once for the profile, which only an admin sets), none once
  // neither does. Another empresa's claim is a unique violation on `cnpj_claims_pkey`, the message
  // naming no one. The empresa's row lock makes its own claims and releases of one CNPJ (a
  // registration removed while an admin sets the profile) apply in turn: each then sees the
  // other's committed row, and a claim is never released while one of them still names it.
  yield* sql`
    CREATE FUNCTION cnpj_claim_sync(claimed text, owner uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      on_profile boolean;
      written integer;
    BEGIN
      PERFORM 1 FROM empresas WHERE id = owner FOR NO KEY UPDATE;
      on_profile := EXISTS (SELECT 1 FROM empresas WHERE id = owner AND cnpj = claimed);
      IF NOT on_profile AND NOT EXISTS (SELECT 1 FROM empresa_cnpjs WHERE empresa_id = owner AND cnpj = claimed) THEN
        DELETE FROM cnpj_claims WHERE cnpj = claimed AND empresa_id = owner;
        RETURN;
      END IF;
      INSERT INTO cnpj_claims AS c (cnpj, empresa_id, proven_by, proven_at)
      VALUES (claimed, owner, CASE WHEN on_profile THEN 'profile' END, CASE WHEN on_profile THEN now() END)
      ON CONFLICT (cnpj) DO UPDATE
        SET proven_by = COALESCE(c.proven_by, EXCLUDED.proven_by), proven_at = COALESCE(c.proven_at, EXCLUDED.proven_at)
        WHERE c.empresa_id = EXCLUDED.empresa_id;
      GET DIAGNOSTICS written = ROW_COUNT;
      IF written = 0 THEN
        RAISE EXCEPTION 'CNPJ % is claimed by another empresa', claimed
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'cnpj_claims_pkey';
      END IF;
    END
    $$`
  yield* sql`
    CREATE FUNCTION cnpj_claims_follow() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'empresas' THEN
        IF TG_OP = 'UPDATE' AND OLD.cnpj IS NOT NULL THEN PERFORM cnpj_claim_sync(OLD.cnpj, OLD.id); END IF;
        IF NEW.cnpj IS NOT NULL THEN PERFORM cnpj_claim_sync(NEW.cnpj, NEW.id); END IF;
      ELSE
        IF TG_OP <> 'INSERT' THEN PERFORM cnpj_claim_sync(OLD.cnpj, OLD.empresa_id); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM cnpj_claim_sync(NEW.cnpj, NEW.empresa_id); END IF;
      END IF;
      RETURN NULL;
    END
    $$`
  // Created before the backfill: they wait for the transactions writing either table and hold off
  // new ones until this migration commits, so no write falls between the backfill and them.
  yield* sql`
    CREATE TRIGGER empresas_cnpj_claim AFTER INSERT ON empresas
    FOR EACH ROW WHEN (NEW.cnpj IS NOT NULL) EXECUTE FUNCTION cnpj_claims_follow()`
  yield* sql`
    CREATE TRIGGER empresas_cnpj_claim_change AFTER UPDATE OF cnpj ON empresas
    FOR EACH ROW WHEN (NEW.cnpj IS DISTINCT FROM OLD.cnpj) EXECUTE FUNCTION cnpj_claims_follow()`
  yield* sql`
    CREATE TRIGGER empresa_cnpjs_claim AFTER INSERT OR UPDATE OR DELETE ON empresa_cnpjs
    FOR EACH ROW EXECUTE FUNCTION cnpj_claims_follow()`

  // Existing data: the profiles first (unique among themselves), proven, since an admin set them.
  yield* sql`
    INSERT INTO cnpj_claims (cnpj, empresa_id, proven_by, proven_at)
    SELECT cnpj, id, 'profile', now() FROM empresas WHERE cnpj IS NOT NULL`
  // A registration of another empresa's profile CNPJ (the two owners this rule ends) loses to the
  // profile, which an admin set: it is removed with the proofs registered for it, and kept here so
  // support can tell that store (and prove its claim instead, if the profile was the mistake).
  yield* sql`
    CREATE TABLE empresa_cnpjs_dropped (
      cnpj           text NOT NULL,
      empresa_id     uuid NOT NULL REFERENCES empresas (id),
      registered_at  timestamptz NOT NULL,
      dropped_at     timestamptz NOT NULL DEFAULT now(),
      reason         text NOT NULL
    )`
  yield* sql`
    WITH lost AS (
      DELETE FROM empresa_cnpjs r USING cnpj_claims c
      WHERE c.cnpj = r.cnpj AND c.empresa_id <> r.empresa_id
      RETURNING r.cnpj, r.empresa_id, r.created_at
    )
    INSERT INTO empresa_cnpjs_dropped (cnpj, empresa_id, registered_at, reason)
    SELECT cnpj, empresa_id, created_at, 'another empresa has this CNPJ on its profile (migration 0032)' FROM lost`
  yield* sql`
    DELETE FROM nfce_cscs p USING empresa_cnpjs_dropped d WHERE p.empresa_id = d.empresa_id AND p.cnpj = d.cnpj`
  yield* sql`
    DELETE FROM nfce_certificates p USING empresa_cnpjs_dropped d
    WHERE p.empresa_id = d.empresa_id AND p.cnpj = d.cnpj`
  // The other registrations are unproven: self-service let anyone register any free CNPJ, so none of
  // them is known to be its store's until an admin says so.
  yield* sql`
    INSERT INTO cnpj_claims (cnpj, empresa_id, created_at)
    SELECT cnpj, empresa_id, created_at FROM empresa_cnpjs
    ON CONFLICT (cnpj) DO NOTHING`
})
