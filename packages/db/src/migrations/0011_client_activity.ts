import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Each client's latest timeline event, so "active clients" is an index range count instead of a
 * distinct count over every event of the window (about 2M a year for a large tenant). Every
 * reporting window ends now, so "active in the window" is `last_active_at >= from`.
 *
 * A trigger keeps it in the transaction of each event, whatever writes the event (the credit and
 * stamp statements, recordEvent, the seeder, tests). It runs once per statement over the
 * statement's new rows: a bulk insert is one grouped upsert, taking its clients' rows in key
 * order. The instant only moves forward, and the upsert's row lock makes concurrent events for
 * one client apply in turn, so the latest always wins. Events are append-only: no update or delete
 * trigger.
 *
 * Not a column of `clients`: credits update that row on every call, and an index on a column
 * they change would make those updates non-HOT across its trigram GIN indexes.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE client_activity (
      empresa_id      uuid NOT NULL,
      client_id       uuid NOT NULL,
      last_active_at  timestamptz NOT NULL,
      PRIMARY KEY (empresa_id, client_id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id)
    )`
  yield* sql`CREATE INDEX client_activity_recent_idx ON client_activity (empresa_id, last_active_at)`

  yield* sql`
    CREATE FUNCTION client_activity_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO client_activity (empresa_id, client_id, last_active_at)
      SELECT empresa_id, client_id, max(created_at) FROM new_events
      GROUP BY empresa_id, client_id
      ORDER BY empresa_id, client_id
      ON CONFLICT (empresa_id, client_id) DO UPDATE SET last_active_at = EXCLUDED.last_active_at
      WHERE client_activity.last_active_at < EXCLUDED.last_active_at;
      RETURN NULL;
    END
    $$`
  // Created before the backfill: it waits for the transactions writing events and holds off new
  // ones until this migration commits, so no event falls between the backfill and the trigger.
  yield* sql`
    CREATE TRIGGER activity_events_client_activity AFTER INSERT ON activity_events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION client_activity_track()`

  yield* sql`
    INSERT INTO client_activity (empresa_id, client_id, last_active_at)
    SELECT empresa_id, client_id, max(created_at) FROM activity_events GROUP BY empresa_id, client_id`
})
