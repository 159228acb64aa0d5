import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The tops of a client's balances (docs/decisions.md, "Bounded sums"): 10^9 points and R$ 10^9 of
 * cashback, core's MAX_POINTS and MAX_MONEY. Core's conditional updates refuse a change past them
 * (a 422); these checks stand behind them, as `balance >= 0` stands behind the spend's. NOT VALID:
 * rows written before are not rescanned, every write from now on is checked.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE clients
      ADD CONSTRAINT clients_balance_top CHECK (balance <= 1000000000) NOT VALID,
      ADD CONSTRAINT clients_cashback_balance_top CHECK (cashback_balance <= 1000000000) NOT VALID`
})
