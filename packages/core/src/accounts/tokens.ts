import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option, Redacted } from "effect"
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose"
import { createHash, randomBytes } from "node:crypto"
import { Config } from "../config.js"
import { Secrets } from "../secrets.js"

/** The one algorithm tokens are signed and verified with: a token naming another (none, HS512) is refused. */
const ALGORITHM = "HS256"
const ISSUER = "fidelis"

/** What a token is for: an access token, or an email link (verification, password reset). */
export const AUDIENCES = { access: "fidelis-end-user", link: "fidelis-account-link" } as const
export type Audience = keyof typeof AUDIENCES

/** The kid of the key generated on an embedded install's first start. */
const INITIAL_KID = "initial"

const SIGNING_KEYS = { table: "signing_keys", id: "kid", value: "secret" } as const

export type VerifyFailure = "expired" | "invalid"

/**
 * A secret as the HMAC key jose signs and verifies with. Imported once per key rather than handed
 * over as bytes, which jose would import again on every call (a third of a verification's CPU).
 */
const hmacKey = (secret: string) =>
  Effect.promise(() =>
    crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify"
    ])
  )

/**
 * Signs and verifies the end-user API's JWTs (docs/decisions.md "Access tokens"). The key is
 * FIDELIS_JWT_SECRET, else one generated on the first start and kept in `signing_keys`, so every
 * process on the database signs and verifies alike. Each token names its key (`kid`); a key is
 * looked up by it, so adding a newer row to `signing_keys` rotates the key (each process signs with
 * the newest unretired row it found when it started) while the tokens the older one signed still
 * verify until they expire or it is retired (`retired_at`). An unknown or retired kid fails. The
 * table's keys are sealed with FIDELIS_SECRET_KEY when the server has one (`Secrets.column`).
 */
export class AccessTokens extends Effect.Service<AccessTokens>()("core/AccessTokens", {
  dependencies: [Secrets.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { accounts } = yield* Config
    const signingKeys = (yield* Secrets).column(SIGNING_KEYS)

    const configured = accounts.jwtSecret === undefined ? undefined : Redacted.value(accounts.jwtSecret)
    const current = yield* Effect.gen(function* () {
      yield* signingKeys.sealKeptInClear
      if (configured !== undefined) {
        const kid = `cfg-${createHash("sha256").update(configured).digest("hex").slice(0, 16)}`
        return { kid, secret: configured }
      }
      const [newest] = yield* sql<{ kid: string; secret: string }>`
        SELECT kid, secret FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`
      // DO UPDATE rather than DO NOTHING: a process racing another's first start gets the committed row.
      const [row] =
        newest === undefined
          ? yield* sql<{ kid: string; secret: string }>`
              INSERT INTO signing_keys (kid, secret)
              VALUES (${INITIAL_KID}, ${yield* signingKeys.keep(INITIAL_KID, randomBytes(32).toString("base64url"))})
              ON CONFLICT (kid) DO UPDATE SET secret = signing_keys.secret
              RETURNING kid, secret`
          : [newest]
      return { kid: row!.kid, secret: yield* signingKeys.reveal(row!.kid, row!.secret) }
    }).pipe(Effect.orDie)
    const currentKey = yield* hmacKey(current.secret)

    /**
     * The key a kid names; with a configured secret, only that one. Older keys are read on every
     * use, not cached, so retiring one ends its tokens on every process at once; only tokens from
     * the hour after a rotation carry them.
     */
    const keyOf = (kid: string) =>
      Effect.gen(function* () {
        if (kid === current.kid) return Option.some(currentKey)
        if (configured !== undefined) return Option.none()
        const [row] = yield* sql<{ secret: string }>`
          SELECT secret FROM signing_keys WHERE kid = ${kid} AND retired_at IS NULL`
        return row === undefined
          ? Option.none()
          : Option.some(yield* hmacKey(yield* signingKeys.reveal(kid, row.secret)))
      })

    const sign = (audience: Audience, subject: string, expiresAt: Date, claims: JWTPayload = {}) =>
      Effect.promise(() =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: ALGORITHM, kid: current.kid, typ: "JWT" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCES[audience])
          .setSubject(subject)
          .setIssuedAt()
          .setExpirationTime(expiresAt)
          .sign(currentKey)
      )

    /**
     * The verified payload and whether the current key signed it, or why it is refused: `expired`, or
     * `invalid` (forged, other key, other algorithm…).
     */
    const verify = (token: string, audience: Audience) =>
      Effect.gen(function* () {
        const header = yield* Effect.try({ try: () => decodeProtectedHeader(token), catch: () => "invalid" as const })
        const key = typeof header.kid === "string" ? yield* keyOf(header.kid) : Option.none()
        if (Option.isNone(key)) return yield* Effect.fail("invalid" as const)
        const { payload } = yield* Effect.tryPromise({
          try: () =>
            jwtVerify(token, key.value, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCES[audience] }),
          catch: (error): VerifyFailure => (error instanceof joseErrors.JWTExpired ? "expired" : "invalid")
        })
        return { payload, current: header.kid === current.kid }
      })

    return sqlErrorsAsDefects({ sign, verify })
  })
}) {}
