import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { layer } from "../src/client.js"
import { createRealDatabase, realServerUrl } from "../src/testing.js"

/** Polls until some statement of the database waits on a row lock. */
const someoneWaitsOnALock = async (url: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity " +
          "WHERE datname = current_database() AND wait_event_type = 'Lock'"
      )
      if (rows[0].n > 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    await client.end()
  }
}

// The hang needs a saturated pool of several server connections, each waiting on the row lock of
// an interrupted transaction: a real server's concern (the embedded pool has one connection).
describe.runIf(realServerUrl() !== undefined)("a request that hung up inside a transaction", () => {
  it("releases its row locks when its statement ends: the requests queued behind wait for no cancel", async () => {
    const database = await createRealDatabase(realServerUrl()!)
    try {
      const program = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE hot (id int PRIMARY KEY, n int NOT NULL)`
        yield* sql`INSERT INTO hot VALUES (1, 0)`

        // A: takes the row, then is still running a statement when its client hangs up.
        const locked = yield* Deferred.make<void>()
        const first = yield* Effect.fork(
          sql
            .withTransaction(
              Effect.gen(function* () {
                yield* sql`UPDATE hot SET n = n + 1 WHERE id = 1`
                yield* Deferred.succeed(locked, undefined)
                yield* sql`SELECT pg_sleep(0.5)`
              })
            )
            .pipe(Effect.orDie)
        )
        yield* Deferred.await(locked)
        // B: the pool's other connection, queued behind A's lock. No connection is left.
        const second = yield* Effect.fork(
          sql.withTransaction(sql`UPDATE hot SET n = n + 10 WHERE id = 1`).pipe(Effect.orDie)
        )
        yield* Effect.promise(() => someoneWaitsOnALock(database.url))

        const hungUp = Date.now()
        yield* Fiber.interrupt(first)
        yield* Fiber.join(second)
        const waited = Date.now() - hungUp
        const [row] = yield* sql<{ n: number }>`SELECT n FROM hot WHERE id = 1`
        return { waited, n: row!.n }
      })
      const { waited, n } = await Effect.runPromise(
        program.pipe(
          Effect.provide(layer({ url: database.url, dataDir: "", maxConnections: 2 })),
          Effect.scoped,
          Effect.orDie
        )
      )
      // A rolled back whole, B committed.
      expect(n).toBe(10)
      // A cancel sent through the saturated pool would have held A's lock for its 5 s wait; B
      // waits only for A's statement (0.5 s) and its rollback.
      expect(waited).toBeLessThan(3_000)
    } finally {
      await database.drop()
    }
  })
})
