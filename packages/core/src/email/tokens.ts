import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { jwtVerify, SignJWT } from "jose"
import { randomBytes } from "node:crypto"
import { z } from "zod"
import { Config } from "../config.js"
import { HttpUrl } from "../contracts.js"
import { EmailMessageId, EmpresaId } from "../ids.js"
import { Secrets } from "../secrets.js"

/** What a tracking link does: count an open, follow a click, or unsubscribe. */
export type TokenKind = "open" | "click" | "unsubscribe"

/**
 * How long each link of a message works, in days from its sending (docs/decisions.md, "Email links
 * expire, and no token in the access log"): tracking is worth a season; an unsubscribe link is kept
 * for a year, since someone may want out of a store's email long after the message came. The age is
 * the message's, in the database, so the links sent before they expired age alike.
 */
export const LINK_LIFETIME_DAYS: Record<TokenKind, number> = { open: 90, click: 90, unsubscribe: 365 }

/** The one algorithm tokens are signed and verified with; a token naming another is refused. */
const ALGORITHM = "HS256"
const AUDIENCE = "fidelis-email"
const SECRET_NAME = "email_token_key"
const SERVER_SECRETS = { table: "server_secrets", id: "name", value: "value" } as const

const Claims = z.object({
  k: z.enum(["open", "click", "unsubscribe"]),
  /** The message the link was sent in. */
  m: EmailMessageId,
  e: EmpresaId,
  /** A click's target: the only place a redirect goes. */
  u: HttpUrl.optional(),
  /** The target is a page of this server: an expired click still leads there (docs/decisions.md). */
  s: z.literal(true).optional()
})

export interface TokenClaims {
  readonly kind: TokenKind
  readonly messageId: EmailMessageId
  readonly empresaId: EmpresaId
  readonly url?: string | undefined
  /** `url` is a page of this server, safe to lead to once the link has expired. */
  readonly ownPage?: boolean | undefined
}

/**
 * The key: FIDELIS_EMAIL_TOKEN_SECRET, else one generated on the first start and kept in the
 * database (sealed with FIDELIS_SECRET_KEY when the server has one), so every process on it signs
 * and verifies alike (and links survive restarts).
 */
const keyOf = Effect.gen(function* () {
  const { email } = yield* Config
  const serverSecrets = (yield* Secrets).column(SERVER_SECRETS)
  yield* serverSecrets.sealKeptInClear
  if (email.tokenSecret !== undefined) return Redacted.value(email.tokenSecret)
  const sql = yield* SqlClient.SqlClient
  // DO UPDATE rather than DO NOTHING: a process racing another's first start waits for its insert and
  // gets the committed row back, where a SELECT in the same statement would not see it yet.
  const [row] = yield* sql<{ value: string }>`
    INSERT INTO server_secrets (name, value)
    VALUES (${SECRET_NAME}, ${yield* serverSecrets.keep(SECRET_NAME, randomBytes(32).toString("base64url"))})
    ON CONFLICT (name) DO UPDATE SET value = server_secrets.value
    RETURNING value`
  return yield* serverSecrets.reveal(SECRET_NAME, row!.value)
})

/**
 * Signed links for emails (docs/architecture.md, "Surveys and email"): a JWT with a fixed algorithm whose
 * claims name the message, the empresa and, for a click, the target URL. A token that does not
 * verify (forged, altered, another kind, another algorithm) is simply absent: the routes answer 404.
 * It carries no expiry: its message's sending dates it (`LINK_LIFETIME_DAYS`).
 */
export class EmailTokens extends Effect.Service<EmailTokens>()("core/EmailTokens", {
  dependencies: [Secrets.Default],
  effect: Effect.gen(function* () {
    const key = new TextEncoder().encode(yield* keyOf.pipe(Effect.orDie))

    const sign = (claims: TokenClaims) =>
      Effect.promise(() =>
        new SignJWT({
          k: claims.kind,
          m: claims.messageId,
          e: claims.empresaId,
          ...(claims.url === undefined ? {} : { u: claims.url }),
          ...(claims.ownPage === true ? { s: true } : {})
        })
          .setProtectedHeader({ alg: ALGORITHM })
          .setAudience(AUDIENCE)
          .sign(key)
      )

    const verify = (token: string, kind: TokenKind) =>
      Effect.promise(async (): Promise<Option.Option<TokenClaims>> => {
        try {
          const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], audience: AUDIENCE })
          const claims = Claims.safeParse(payload)
          if (!claims.success || claims.data.k !== kind) return Option.none()
          const { m, e, u, s } = claims.data
          return Option.some({ kind, messageId: m, empresaId: e, url: u, ownPage: s === true })
        } catch {
          return Option.none()
        }
      })

    return { sign, verify }
  })
}) {}
