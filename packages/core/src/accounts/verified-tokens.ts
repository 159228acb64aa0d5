import { createHash } from "node:crypto"
import type { AuthCache, VerifiedToken } from "../auth-cache.js"

const digestOf = (token: string) => createHash("sha256").update(token).digest("base64")

/**
 * Access tokens verified recently, with the user and session each names, by the token's digest, so
 * a bearer request is admitted without a signature check or a round trip (docs/decisions.md
 * "Verified access tokens"). They live in the auth cache beside the API keys, so the end of a
 * session (or of every session of a user) evicts them on every process the way a key's revocation
 * does ("Access tokens die with their session"). Only tokens signed with the process's current key
 * are put here: an older key is read on every use so that retiring it ends its tokens at once.
 */
export const verifiedTokens = (cache: AuthCache) => ({
  get: (token: string): VerifiedToken | undefined => cache.token(digestOf(token)),
  /** Where a lookup begins: what it finds is kept only if nothing was evicted meanwhile. */
  epoch: cache.epoch,
  /** `expiresAt`: the token's own expiry (its `exp`, epoch seconds). */
  put: (token: string, value: VerifiedToken, expiresAt: number, since: number) =>
    cache.putToken(digestOf(token), value, expiresAt * 1000, since)
})
