import { createHash } from "node:crypto"
import { expiringMap } from "../expiring-map.js"
import type { UserId } from "../ids.js"

/**
 * A backstop only. No operation takes a registered user's account away (there is no deletion, and a
 * password is only ever replaced), so what a cached entry says stays true until the token expires;
 * the minute bounds how long a user removed by hand in the database keeps working.
 */
const TTL_MS = 60_000
const MAX_ENTRIES = 10_000

const digestOf = (token: string) => createHash("sha256").update(token).digest("base64")

/**
 * Access tokens verified recently and the registered user each names, by the token's digest, so a
 * bearer request is admitted without a signature check or a round trip (docs/decisions.md "Verified
 * access tokens"). Only tokens signed with the process's current key are put here: an older key is
 * read on every use so that retiring it ends its tokens at once.
 */
export const verifiedTokens = () => {
  const entries = expiringMap<string, UserId>(MAX_ENTRIES)
  return {
    get: (token: string): UserId | undefined => entries.get(digestOf(token)),
    /** `expiresAt`: the token's own expiry (its `exp`, epoch seconds). */
    put: (token: string, userId: UserId, expiresAt: number) =>
      entries.set(digestOf(token), userId, Math.min(expiresAt * 1000, Date.now() + TTL_MS))
  }
}
