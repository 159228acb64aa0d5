import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Access paths for the business metrics (overview, client behavior, loyalty cards): each windowed
 * aggregate reads one index range of `(empresa_id, <instant>)`, as an index-only scan where the
 * columns it sums are included, instead of every row the empresa ever wrote.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Points issued, spent, refunded... in a window.
  yield* sql`CREATE INDEX points_ledger_period_idx ON points_ledger (empresa_id, created_at) INCLUDE (kind, points)`

  // Clients with any timeline event in a window (active clients, a client's visits).
  yield* sql`CREATE INDEX activity_events_period_idx ON activity_events (empresa_id, created_at) INCLUDE (client_id)`

  // Distinct cardholders of one program, read in client order from the index alone.
  yield* sql`CREATE INDEX loyalty_cards_holders_idx ON loyalty_cards (empresa_id, program_id, client_id)`

  // One client's stamps in a window (the period indexes lead with the instant, not the client).
  yield* sql`CREATE INDEX loyalty_stamps_client_idx ON loyalty_stamps (empresa_id, client_id, created_at)
             INCLUDE (quantity)`

  // When a coupon left 'active' (used_at, cancelled_at) or leaves it (expires_at, also for the
  // ones already expired): one range finds what was used, cancelled or expired in a window, and
  // the range after now() holds exactly the active coupons. The service repeats this expression
  // verbatim, or the planner would not match it. No INCLUDE: Postgres plans no index-only scan
  // on an expression index (it rechecks the expression's columns), so it reads the heap anyway.
  yield* sql`
    CREATE INDEX coupons_closing_idx ON coupons
    (empresa_id, (CASE status WHEN 'used' THEN used_at WHEN 'cancelled' THEN cancelled_at ELSE expires_at END))`

  // The same for redemptions: validated_at, cancelled_at, else expires_at.
  yield* sql`
    CREATE INDEX redemptions_closing_idx ON redemptions
    (empresa_id,
     (CASE status WHEN 'validated' THEN validated_at WHEN 'cancelled' THEN cancelled_at ELSE expires_at END))`
})
