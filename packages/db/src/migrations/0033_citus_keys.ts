import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Keys Citus can distribute by `empresa_id` (docs/scaling.md; packages/db/test/citus-ready.test.ts
 * reads the catalog for them). Citus enforces a primary key, a unique index and a foreign key within
 * one shard, so each must carry the distribution column; a shard moves without blocking writes only
 * with a replica identity, which a primary key gives.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // A CNPJ belongs to one empresa only: `cnpj_claims` (0032) holds that rule, keyed by the CNPJ, and
  // its trigger refuses a second empresa's registration in the writing transaction. This table's own
  // key on the CNPJ said it a second time, in a way a distributed table cannot.
  yield* sql`ALTER TABLE empresa_cnpjs DROP CONSTRAINT empresa_cnpjs_pkey, ADD PRIMARY KEY (empresa_id, cnpj)`
  yield* sql`DROP INDEX empresa_cnpjs_empresa_idx`

  // A member's id is looked up within its empresa only; the inviting key is one of the empresa's own
  // (the company API passes the calling key), so the reference names the empresa too. A reference
  // that would not hold (none is known) is cleared rather than stop the migration: it only records
  // who invited.
  yield* sql`ALTER TABLE team_members DROP CONSTRAINT team_members_id_key, ADD UNIQUE (empresa_id, id)`
  yield* sql`ALTER TABLE api_keys ADD UNIQUE (empresa_id, id)`
  yield* sql`
    UPDATE team_members m SET invited_by = NULL
    WHERE invited_by IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.empresa_id = m.empresa_id AND k.id = m.invited_by)`
  yield* sql`
    ALTER TABLE team_members
      DROP CONSTRAINT team_members_invited_by_fkey,
      ADD FOREIGN KEY (empresa_id, invited_by) REFERENCES api_keys (empresa_id, id)`

  // The per-client roll-ups (0020, 0022) are keyed by (empresa_id, program_id, client_id) with a null
  // program for "every program", which a primary key cannot hold: a surrogate key gives them one.
  for (const table of ["loyalty_client_stamps", "loyalty_cardholders"]) {
    yield* sql`
      ALTER TABLE ${sql(table)}
        ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
        ADD PRIMARY KEY (empresa_id, id)`
  }

  // Jobs are platform infrastructure kept on the coordinator, which a distributed table cannot
  // reference. The outbox writes the message and its job in one transaction, and jobs are never
  // deleted, so the key guarded nothing the writer does not.
  yield* sql`ALTER TABLE email_messages DROP CONSTRAINT email_messages_job_id_fkey`
})
