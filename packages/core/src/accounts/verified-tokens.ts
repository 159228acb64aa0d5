import { createHash } from "node:crypto"
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
  const entries = new Map<string, { readonly userId: UserId; readonly expires: number }>()
  return {
    get: (token: string): UserId | undefined => {
      const digest = digestOf(token)
      const entry = entries.get(digest)
      if (entry === undefined) return undefined
      if (entry.expires <= Date.now()) {
        entries.delete(digest)
        return undefined
      }
      return entry.userId
    },
    /** `expiresAt`: the token's own expiry (its `exp`, epoch seconds). */
    put: (token: string, userId: UserId, expiresAt: number) => {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
      entries.set(digestOf(token), { userId, expires: Math.min(expiresAt * 1000, Date.now() + TTL_MS) })
    }
  }
}
