import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { layer } from "../src/client.js"

describe("embedded database", () => {
  // A request whose client hangs up is interrupted mid-statement. Cancelling it through the pool's
  // only connection, which its own transaction holds, would wait 5 s with every request behind it.
  it.live(
    "interrupting a statement inside a transaction frees the only connection at once",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // A result large enough to stream over many turns of the event loop: in flight when interrupted.
        const statement = yield* Effect.fork(
          sql.withTransaction(sql`SELECT repeat('x', 100) AS filler FROM generate_series(1, 300000)`)
        )
        yield* Effect.sleep("100 millis")
        const started = Date.now()
        yield* Fiber.interrupt(statement)
        const rows = yield* sql<{ one: number }>`SELECT 1 AS one`
        expect(rows).toEqual([{ one: 1 }])
        expect(Date.now() - started).toBeLessThan(3_000)
      }).pipe(Effect.provide(layer({ url: undefined, dataDir: "memory://" }))),
    30_000
  )
})
