import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** How many rows a rollup spreads one key over, so concurrent writers of one tenant do not queue on one row. */
const STRIPES = 8
/** The stripe a write adds to: its backend's, so one transaction keeps adding to the rows it already holds. */
export const STRIPE = `pg_backend_pid() % ${STRIPES}`

/** A rollup kept by statement-level triggers on an append-only fact table (migrations 0019 to 0022). */
export interface RollUpOnWrite {
  /** The fact table. */
  readonly facts: string
  /** Names the trigger functions and triggers, `<trigger>_insert` and `<trigger>_update`. */
  readonly trigger: string
  /** The statement adding the facts of a relation (a fact-shaped one) to the rollup. */
  readonly rollUp: (rows: string) => string
  /**
   * When an update can move a fact: the columns the rollup keys on, and the one it sums. Without
   * it, updates are not followed, and cost nothing: the rollup reads only what never changes.
   */
  readonly moves?: { readonly keys: string; readonly measure: string }
}

/**
 * Adds each insert statement's new rows on `facts` to its rollup, and moves an updated row's
 * `measure` from its old keys to its new ones (the demo tenant moves its history back in time), in
 * the statement's transaction; then rolls up the rows already there. Created before the backfill:
 * the trigger's creation waits for the transactions writing facts and holds off new ones until the
 * migration commits, so no fact falls between the two.
 */
export const rollUpOnWrite = ({ facts, trigger, rollUp, moves }: RollUpOnWrite) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const events: Array<readonly [string, string, string]> = [["INSERT", "new_rows", "NEW TABLE AS new_rows"]]
    if (moves !== undefined) {
      const { keys, measure } = moves
      const moved = `(SELECT ${keys}, -${measure} AS ${measure} FROM old_rows
                      UNION ALL SELECT ${keys}, ${measure} FROM new_rows) moved`
      events.push(["UPDATE", moved, "OLD TABLE AS old_rows NEW TABLE AS new_rows"])
    }
    for (const [event, rows, transition] of events) {
      const name = sql.literal(`${trigger}_${event.toLowerCase()}`)
      yield* sql`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${sql.literal(rollUp(rows))};
          RETURN NULL;
        END
        $$`
      yield* sql`
        CREATE TRIGGER ${name} AFTER ${sql.literal(event)} ON ${sql.literal(facts)}
        REFERENCING ${sql.literal(transition)}
        FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`
    }
    yield* sql.unsafe(rollUp(facts))
  })
