import { Either } from "effect"
import { BadRequest, Unauthenticated } from "./errors.js"
import type { EmpresaId, KeyId } from "./ids.js"

/** The request's credentials exactly as they arrived; core decides what they mean. */
export interface Credentials {
  readonly apiKey?: string | null | undefined
  readonly authorization?: string | null | undefined
}

/** The credential of an `Authorization: Bearer <credential>` header; undefined for any other shape. */
export const bearerOf = (authorization: string | null | undefined): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1]

/** Who is calling, once credentials are checked. */
export type Principal =
  | { readonly kind: "company"; readonly keyId: KeyId; readonly empresaId: EmpresaId }
  /** Platform staff: an admin-scope key, `FIDELIS_ADMIN_KEY`, or the in-process CLI. */
  | { readonly kind: "admin"; readonly keyId: KeyId | null; readonly via: "key" | "env" | "local" }

export const LOCAL_ADMIN: Principal = { kind: "admin", keyId: null, via: "local" }

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
