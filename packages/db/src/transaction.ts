import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/**
 * Runs `effect` in a transaction: the caller's when there is one, else its own. @effect/sql's
 * `withTransaction` nests instead, with a SAVEPOINT (one more round trip, two on failure, and a
 * span) each time a service that is transactional on its own runs inside another's: every
 * idempotent mutation (`Idempotency.once` around the service) paid it. A savepoint only matters to
 * a caller that recovers from the inner failure and goes on in the same transaction; none does:
 * a failure inside a transaction fails the whole of it (docs/decisions.md, "Joined transactions").
 */
export const inTransaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Option.isSome(outer) ? effect : sql.withTransaction(effect)
    )
