import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Ref } from "effect"
import { Conflict } from "../src/errors.js"
import { Idempotency } from "../src/idempotency.js"
import { newEmpresa, TestCore } from "./support.js"

layer(TestCore, { timeout: 60_000 })("Idempotency.once", (it) => {
  it.effect("runs the effect once and replays the stored value for the same request", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency
      const empresa = yield* newEmpresa()
      const runs = yield* Ref.make(0)
      const effect = Ref.updateAndGet(runs, (n) => n + 1).pipe(Effect.map((n) => ({ run: n })))
      const call = { empresaId: empresa.id, operation: "test", key: "k1", request: { a: 1, b: [1, 2] } }
      const first = yield* idempotency.once(call, effect)
      // The same request with its keys in another order is the same request.
      const second = yield* idempotency.once({ ...call, request: { b: [1, 2], a: 1 } }, effect)
      expect(first).toEqual({ value: { run: 1 }, replayed: false })
      expect(second).toEqual({ value: { run: 1 }, replayed: true })
      expect(yield* Ref.get(runs)).toBe(1)
    })
  )

  it.effect("refuses the same key with another request, and runs every time without a key", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency
      const empresa = yield* newEmpresa()
      const call = { empresaId: empresa.id, operation: "test", key: "k2", request: { a: 1 } }
      yield* idempotency.once(call, Effect.succeed(1))
      const reused = yield* Effect.either(idempotency.once({ ...call, request: { a: 2 } }, Effect.succeed(2)))
      expect(Either.isLeft(reused) && reused.left._tag).toBe("ValidationFailed")
      const runs = yield* Ref.make(0)
      for (let i = 0; i < 3; i++) {
        yield* idempotency.once(
          { ...call, key: undefined },
          Ref.update(runs, (n) => n + 1)
        )
      }
      expect(yield* Ref.get(runs)).toBe(3)
    })
  )

  it.effect("records nothing when the effect fails, so a retry with the same key acts", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa()
      const call = { empresaId: empresa.id, operation: "test", key: "k3", request: {} }
      const refused = new Conflict({ code: "OUT_OF_STOCK", message: "refused" })
      const failed = yield* Effect.either(
        idempotency.once(
          call,
          sql`INSERT INTO rate_limit_counters VALUES ('probe', now(), 1)`.pipe(Effect.zipRight(Effect.fail(refused)))
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      // The failed attempt's writes were rolled back with it.
      const probes = yield* sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM rate_limit_counters WHERE bucket = 'probe'`
      expect(probes[0]?.n).toBe(0)
      const retried = yield* idempotency.once(call, Effect.succeed("ok"))
      expect(retried).toEqual({ value: "ok", replayed: false })
    })
  )
})
