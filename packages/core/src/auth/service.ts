import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Either, Redacted } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Config } from "../config.js"
import { BadRequest, Forbidden, NotFound, RateLimited, Unauthenticated } from "../errors.js"
import { expiringMap } from "../expiring-map.js"
import type { EmpresaId, KeyId } from "../ids.js"
import { addressBucket } from "./address.js"
import { AuthCache } from "./cache.js"
import { bearerOf, type Credentials, type Principal } from "./principal.js"
import type { ApiKeyCreated, ApiKeyRecord, ApiKeyScope } from "./contracts.js"
import { RateLimiter } from "./rate-limiter.js"
import { traced } from "../tracing.js"

const KEY_PATTERN = /^fid_[A-Za-z0-9_-]{32,128}$/

const digest = (value: string) => createHash("sha256").update(value).digest()
const sha256 = (value: string) => digest(value).toString("hex")

/** `fid_` + 32 url-safe chars (192 random bits); the prefix shown later identifies it without revealing it. */
const newKey = () => {
  const key = `fid_${randomBytes(24).toString("base64url")}`
  return { key, prefix: key.slice(0, 12), hash: sha256(key) }
}

/**
 * Picks the one credential out of the two headers the spec allows (section 5): both present with
 * different values is a 400; a non-Bearer Authorization is a malformed credential. An Either, so
 * admission can read it without running a program.
 */
export const presentedKey = (credentials: Credentials): Either.Either<string, BadRequest | Unauthenticated> => {
  const header = credentials.apiKey?.trim() || undefined
  const authorization = credentials.authorization?.trim() || undefined
  let bearer: string | undefined
  if (authorization !== undefined) {
    bearer = bearerOf(authorization)
    if (bearer === undefined) {
      return Either.left(new Unauthenticated({ message: "Authorization header must be 'Bearer <API key>'" }))
    }
  }
  if (header !== undefined && bearer !== undefined && header !== bearer) {
    return Either.left(new BadRequest({ message: "X-API-Key and Authorization carry different keys; send only one" }))
  }
  const key = header ?? bearer
  if (key === undefined) {
    return Either.left(new Unauthenticated({ message: "Missing API key: send it in the X-API-Key header" }))
  }
  return Either.right(key)
}

/**
 * The challenge of a 401 for an API key (RFC 9110 requires one), the same on every surface. Bearer,
 * because `Authorization: Bearer <key>` is one of the two ways a key travels and every client parses
 * that scheme; the description names the other, X-API-Key. No `resource_metadata`: MCP clients then
 * show the description instead of starting an OAuth flow this server has none of. No error code when
 * no key was sent (RFC 6750, section 3.1).
 */
export const apiKeyChallenge = (credentials: Credentials): string => {
  const sent = Boolean(credentials.apiKey?.trim() || credentials.authorization?.trim())
  return [
    'Bearer realm="fidelis"',
    ...(sent ? ['error="invalid_token"'] : []),
    'error_description="Check the Fidelis API key: send it as X-API-Key or Authorization: Bearer"'
  ].join(", ")
}

/** What a key grants: who it is, and the budget its calls count against. */
export interface Grant {
  readonly principal: Principal
  readonly bucket: string
}

/** One answer for a key that never existed and one that was revoked: a guesser learns nothing from it. */
const INVALID_KEY = "Invalid or revoked API key"

const GUESSING = "Too many failed API key attempts from this address"

/** Addresses refused for guessing, remembered by each process; beyond this many, the oldest is forgotten. */
const MAX_GUESSING_ADDRESSES = 10_000

const guessingBucket = (address: string | undefined) => `key-failures:${addressBucket(address)}`

const ENV_ADMIN: Grant = { principal: { kind: "admin", keyId: null, via: "env" }, bucket: "admin:env" }

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  empresa_id: row.empresa_id,
  name: row.name,
  scope: row.scope,
  prefix: row.prefix,
  created_at: row.created_at,
  revoked_at: row.revoked_at,
  last_used_at: row.last_used_at
})

interface ApiKeyRow {
  readonly id: KeyId
  readonly empresa_id: EmpresaId
  readonly name: string
  readonly scope: ApiKeyScope
  readonly prefix: string
  readonly created_at: string
  readonly revoked_at: string | null
  readonly last_used_at: string | null
}

export class ApiKeys extends Effect.Service<ApiKeys>()("core/ApiKeys", {
  accessors: true,
  dependencies: [AuthCache.Default, RateLimiter.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const cache = yield* AuthCache
    const limiter = yield* RateLimiter
    // Compared by digest, in constant time whatever the presented key's length; hashed once, not per request.
    const adminKeyDigest = config.adminKey === undefined ? undefined : digest(Redacted.value(config.adminKey))
    // The epoch milliseconds until which an address's keys are refused unread (docs/decisions.md "Key guessing").
    const guessing = expiringMap<string, number>(MAX_GUESSING_ADDRESSES)

    /** Seconds until an address refused for guessing may present a key again; undefined when it may now. */
    const refusedFor = (address: string | undefined) => {
      const until = guessing.get(guessingBucket(address))
      return until === undefined ? undefined : Math.max(1, Math.ceil((until - Date.now()) / 1000))
    }

    /**
     * The grant of a key known without asking the database (the env admin key, or a cached lookup);
     * a plain function, so a request's admission can read it without running a program. An address
     * refused for guessing gets none: even a right key waits, so its answer tells a guesser nothing.
     */
    const knownGrant = (key: string, address: string | undefined, presented = digest(key)): Grant | undefined => {
      if (refusedFor(address) !== undefined) return undefined
      return adminKeyDigest !== undefined && timingSafeEqual(presented, adminKeyDigest)
        ? ENV_ADMIN
        : cache.get(presented.toString("hex"))
    }

    /**
     * Counts a failed authentication against its address's budget, shared by every process; past
     * it, the address's keys are refused with 429 until the window ends, right ones too.
     */
    const failed = (address: string | undefined) =>
      Effect.gen(function* () {
        const bucket = guessingBucket(address)
        const [window] = yield* limiter.hit([{ bucket, limit: config.keyFailuresPerMinute }])
        if (window!.exceeded) {
          guessing.set(bucket, Date.now() + window!.retryAfter * 1000, Date.now() + window!.retryAfter * 1000)
          return yield* new RateLimited({ retryAfter: window!.retryAfter, reason: GUESSING })
        }
      })

    /** Resolves a presented key to its principal; the bucket names its rate-limit budget. */
    const lookUp = (key: string, presented: Buffer) =>
      Effect.gen(function* () {
        if (!KEY_PATTERN.test(key)) {
          return yield* new Unauthenticated({ message: "Malformed API key: expected fid_<random>" })
        }
        const hash = presented.toString("hex")
        const since = cache.epoch()
        // The touch is throttled to once a minute so authentication stays a read on the hot path.
        const rows = yield* sql<{
          id: KeyId
          empresa_id: EmpresaId
          scope: ApiKeyScope
          revoked: boolean
          api_access: boolean
        }>`
        WITH k AS (
          SELECT k.id, k.empresa_id, k.scope, k.revoked_at IS NOT NULL AS revoked, e.api_access
          FROM api_keys k JOIN empresas e ON e.id = k.empresa_id
          WHERE k.key_hash = ${hash}
        ), touch AS (
          UPDATE api_keys SET last_used_at = now()
          WHERE id IN (SELECT id FROM k WHERE NOT revoked)
            AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
          RETURNING 1
        )
        SELECT * FROM k`
        const row = rows[0]
        if (row === undefined || row.revoked) return yield* new Unauthenticated({ message: INVALID_KEY })
        if (row.scope === "empresa" && !row.api_access) {
          return yield* new Forbidden({ message: "This account's plan does not include API access" })
        }
        const principal: Principal =
          row.scope === "admin"
            ? { kind: "admin", keyId: row.id, via: "key" }
            : { kind: "company", keyId: row.id, empresaId: row.empresa_id }
        const authenticated = { principal, bucket: `key:${row.id}`, keyId: row.id, empresaId: row.empresa_id }
        cache.put(hash, authenticated, since)
        return authenticated
      })

    /**
     * Resolves the key a client address presents (docs/decisions.md "Key guessing"): its failures
     * are counted, and an address past their budget is refused before any lookup.
     */
    const authenticate = traced("ApiKeys.authenticate")(function* (key: string, address: string | undefined) {
      const wait = refusedFor(address)
      if (wait !== undefined) return yield* new RateLimited({ retryAfter: wait, reason: GUESSING })
      const presented = digest(key)
      const known = knownGrant(key, address, presented)
      if (known !== undefined) return known
      return yield* lookUp(key, presented).pipe(Effect.tapErrorTag("Unauthenticated", () => failed(address)))
    })

    const create = traced("ApiKeys.create")(function* (
      empresaId: EmpresaId,
      input: { name: string; scope: ApiKeyScope }
    ) {
      const { key, prefix, hash } = newKey()
      const rows = yield* sql<ApiKeyRow>`
        INSERT INTO api_keys (empresa_id, name, scope, prefix, key_hash)
        SELECT ${empresaId}, ${input.name}, ${input.scope}, ${prefix}, ${hash}
        WHERE EXISTS (SELECT 1 FROM empresas WHERE id = ${empresaId})
        RETURNING *`
      const row = rows[0]
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id: empresaId })
      return { ...toRecord(row), key } satisfies ApiKeyCreated
    })

    const list = traced("ApiKeys.list")(function* (empresaId: EmpresaId) {
      const [exists] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM empresas WHERE id = ${empresaId}`
      if (!exists?.n) return yield* new NotFound({ resource: "Empresa", id: empresaId })
      const rows = yield* sql<ApiKeyRow>`
        SELECT * FROM api_keys WHERE empresa_id = ${empresaId} ORDER BY created_at DESC, id`
      return rows.map(toRecord)
    })

    /** Revoking is idempotent: a revoked key comes back as it is, with its first revocation time. */
    const revoke = traced("ApiKeys.revoke")(function* (keyId: KeyId) {
      const rows = yield* sql<ApiKeyRow>`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${keyId} RETURNING *`.pipe(
        cache.keyChange(keyId)
      )
      const row = rows[0]
      if (row === undefined) return yield* new NotFound({ resource: "API key", id: keyId })
      return toRecord(row)
    })

    return { ...sqlErrorsAsDefects({ authenticate, create, list, revoke }), knownGrant }
  })
}) {}
