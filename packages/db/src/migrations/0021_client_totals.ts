import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { rollUpOnWrite, STRIPE } from "../roll-up.js"

/**
 * Per empresa, how many clients it has and the points they hold (`client_totals`), and how many
 * joined in each UTC hour (`clients_hourly`): the overview read every client of the tenant for
 * these (100,000 rows for a large one, most of a year-long overview's time), and the loyalty
 * report counted them too.
 *
 * Kept like the hourly rollups (0019): by triggers in the transaction of each write, striped by the
 * writing backend so concurrent credits of one tenant do not queue on one row. A credit's or a
 * spend's balance change is one row here, taken at the end of its statement before the ledger's
 * rollup row (triggers fire in the order their events occurred, and the balance is updated before
 * its ledger entry is written), so every transaction takes its stripe's rows in the same order.
 * Clients are never deleted.
 */

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE client_totals (
      empresa_id   uuid NOT NULL,
      stripe       smallint NOT NULL,
      clients      bigint NOT NULL,
      outstanding  bigint NOT NULL,
      PRIMARY KEY (empresa_id, stripe)
    )`
  yield* sql`
    CREATE TABLE clients_hourly (
      empresa_id  uuid NOT NULL,
      hour        timestamptz NOT NULL,
      stripe      smallint NOT NULL,
      created     bigint NOT NULL,
      PRIMARY KEY (empresa_id, hour, stripe)
    )`

  // New clients, once per statement (an import is one grouped upsert per table), then the clients
  // already there. The totals' trigger sorts, and so fires, before the hours'.
  yield* rollUpOnWrite({
    facts: "clients",
    trigger: "client_totals",
    rollUp: (rows) => `
      INSERT INTO client_totals AS t (empresa_id, stripe, clients, outstanding)
      SELECT empresa_id, ${STRIPE}, count(*), sum(balance) FROM ${rows}
      GROUP BY 1 ORDER BY 1
      ON CONFLICT (empresa_id, stripe) DO UPDATE SET
        clients = t.clients + EXCLUDED.clients, outstanding = t.outstanding + EXCLUDED.outstanding`
  })
  yield* rollUpOnWrite({
    facts: "clients",
    trigger: "clients_hourly",
    rollUp: (rows) => `
      INSERT INTO clients_hourly AS h (empresa_id, hour, stripe, created)
      SELECT empresa_id, date_trunc('hour', created_at, 'UTC'), ${STRIPE}, count(*) FROM ${rows}
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (empresa_id, hour, stripe) DO UPDATE SET created = h.created + EXCLUDED.created`
  })

  // A changed balance or joining instant, row by row: a statement-level trigger cannot name its
  // columns (transition tables forbid it) and would run for every other update of a client, while
  // this one's WHEN is checked without calling the function.
  yield* sql`
    CREATE FUNCTION client_totals_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.balance IS DISTINCT FROM OLD.balance THEN
        INSERT INTO client_totals AS t (empresa_id, stripe, clients, outstanding)
        VALUES (NEW.empresa_id, ${sql.literal(STRIPE)}, 0, NEW.balance - OLD.balance)
        ON CONFLICT (empresa_id, stripe) DO UPDATE SET outstanding = t.outstanding + EXCLUDED.outstanding;
      END IF;
      IF date_trunc('hour', NEW.created_at, 'UTC') IS DISTINCT FROM date_trunc('hour', OLD.created_at, 'UTC') THEN
        INSERT INTO clients_hourly AS h (empresa_id, hour, stripe, created)
        SELECT NEW.empresa_id, hour, ${sql.literal(STRIPE)}, created
        FROM (VALUES (date_trunc('hour', OLD.created_at, 'UTC'), -1),
                     (date_trunc('hour', NEW.created_at, 'UTC'), 1)) moved (hour, created)
        ORDER BY hour
        ON CONFLICT (empresa_id, hour, stripe) DO UPDATE SET created = h.created + EXCLUDED.created;
      END IF;
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE TRIGGER client_totals_update AFTER UPDATE OF balance, created_at ON clients
    FOR EACH ROW WHEN (NEW.balance IS DISTINCT FROM OLD.balance OR NEW.created_at IS DISTINCT FROM OLD.created_at)
    EXECUTE FUNCTION client_totals_update()`
})
