import { SqlClient } from "@effect/sql"
import { dieOnSqlError, inTransaction, jsonb } from "@fidelis/db"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { Config } from "./config.js"
import { Conflict, ValidationFailed } from "./errors.js"
import { span } from "./tracing.js"
import type { EmpresaId } from "./ids.js"
import { IDEMPOTENCY_KEY } from "./idempotency-key.js"

/** What a write hands the idempotency service, and what it gets back. */

export interface IdempotentCall {
  readonly empresaId: EmpresaId
  readonly operation: string
  readonly key: string | undefined
  /** The validated input: a replay must carry the same one. */
  readonly request: unknown
}

export interface IdempotentResult<A> {
  readonly value: A
  readonly replayed: boolean
}

/** Key order must not change the fingerprint of the same logical request. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>)
            .filter(([, v]) => v !== undefined)
            .toSorted(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, canonical(v)])
        )
      : value

const fingerprintOf = (request: unknown) =>
  createHash("sha256")
    .update(JSON.stringify(canonical(request)))
    .digest("hex")

/**
 * Runs an effect at most once per (empresa, operation, key), recording its response in the same
 * transaction as the effect itself (docs/architecture.md, "Storage"). A transaction-scoped advisory lock tells a
 * concurrent duplicate (409) from a finished one (replayed).
 */
export class Idempotency extends Effect.Service<Idempotency>()("core/Idempotency", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config

    const once = <A, E, R>(call: IdempotentCall, effect: Effect.Effect<A, E, R>) => {
      const { key } = call
      if (key === undefined) {
        return inTransaction(sql)(effect).pipe(
          dieOnSqlError,
          Effect.map((value): IdempotentResult<A> => ({ value, replayed: false }))
        )
      }
      const fingerprint = fingerprintOf(call.request)
      return Effect.gen(function* () {
        const [lock] = yield* sql<{ locked: boolean }>`
          SELECT pg_try_advisory_xact_lock(
                   hashtextextended(${`${call.empresaId}:${call.operation}:${key}`}, 0)) AS locked`
        if (!lock?.locked) {
          return yield* new Conflict({
            code: "IDEMPOTENCY_IN_FLIGHT",
            message: "A request with this X-Idempotency-Key is still being processed; retry shortly"
          })
        }
        const [stored] = yield* sql<{ fingerprint: string; response: A }>`
          SELECT fingerprint, response FROM idempotency_keys
          WHERE empresa_id = ${call.empresaId} AND operation = ${call.operation} AND key = ${key}
            AND expires_at > now()`
        if (stored !== undefined) {
          if (stored.fingerprint !== fingerprint) {
            return yield* new ValidationFailed({
              issues: [
                {
                  loc: ["header", IDEMPOTENCY_KEY.header],
                  msg: "This idempotency key was already used with a different request body",
                  type: "idempotency_key_reused"
                }
              ]
            })
          }
          return { value: stored.response, replayed: true } satisfies IdempotentResult<A>
        }
        const value = yield* effect
        yield* sql`
          INSERT INTO idempotency_keys (empresa_id, operation, key, fingerprint, response, expires_at)
          VALUES (${call.empresaId}, ${call.operation}, ${key}, ${fingerprint}, ${jsonb(value)}::jsonb,
                  now() + make_interval(secs => ${config.idempotencyTtlSeconds}))
          ON CONFLICT (empresa_id, operation, key) DO UPDATE
          SET fingerprint = excluded.fingerprint, response = excluded.response,
              created_at = now(), expires_at = excluded.expires_at`
        return { value, replayed: false } satisfies IdempotentResult<A>
      }).pipe(
        inTransaction(sql),
        dieOnSqlError,
        span("Idempotency.once", { attributes: { operation: call.operation } })
      )
    }

    const sweep = sql`DELETE FROM idempotency_keys WHERE expires_at < now()`.pipe(
      Effect.asVoid,
      dieOnSqlError,
      span("Idempotency.sweep")
    )

    return { once, sweep } as const
  })
}) {}
