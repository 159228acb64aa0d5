import { describe, expect, it } from "vitest"
import { authEntries, type Authenticated, type VerifiedToken } from "../src/auth-cache.js"
import type { EmpresaId, KeyId, UserId } from "../src/ids.js"

const grant = (key: string, empresa = "e1"): Authenticated => {
  const [keyId, empresaId] = [key as KeyId, empresa as EmpresaId]
  return { principal: { kind: "company", keyId, empresaId }, bucket: `key:${keyId}`, keyId, empresaId }
}

const token = (user: string, session: string): VerifiedToken => ({ userId: user as UserId, sessionId: session })

/** A lookup as ApiKeys.authenticate makes one: note the epoch, read the database, then offer the result. */
const lookup = (entries: ReturnType<typeof authEntries>, hash: string, value: Authenticated) => {
  const since = entries.epoch()
  return () => entries.put(hash, value, since)
}

// The races between a lookup's read and the evictions that could overtake it, step by step: each
// of these orders is one a real process can take when the listener's events and a lookup's round
// trip interleave.
describe("cached authentications on a shared database", () => {
  it("caches nothing until LISTEN is confirmed, nor a lookup that began before it was", () => {
    const entries = authEntries({ live: false })
    lookup(entries, "h1", grant("k1"))()
    expect(entries.get("h1")).toBeUndefined()

    const beforeLive = lookup(entries, "h1", grant("k1"))
    entries.live()
    beforeLive()
    expect(entries.get("h1")).toBeUndefined()

    lookup(entries, "h1", grant("k1"))()
    expect(entries.get("h1")).toEqual(grant("k1"))
  })

  it("drops everything when the listener is lost and caches nothing until it is live again", () => {
    const entries = authEntries({ live: false })
    entries.live()
    lookup(entries, "h1", grant("k1"))()
    const acrossTheLoss = lookup(entries, "h2", grant("k2"))
    entries.lost()
    expect(entries.get("h1")).toBeUndefined()
    acrossTheLoss()
    expect(entries.get("h2")).toBeUndefined()

    const duringTheGap = lookup(entries, "h2", grant("k2"))
    duringTheGap()
    expect(entries.get("h2")).toBeUndefined()
    entries.live()
    duringTheGap()
    expect(entries.get("h2")).toBeUndefined()
  })

  it("evicts by key and by empresa, and keeps out a lookup that an eviction overtook", () => {
    const entries = authEntries({ live: true })
    lookup(entries, "h1", grant("k1", "e1"))()
    lookup(entries, "h2", grant("k2", "e2"))()
    const overtaken = lookup(entries, "h3", grant("k3", "e2"))
    entries.message("key:k1")
    overtaken()
    expect([entries.get("h1"), entries.get("h2"), entries.get("h3")]).toEqual([undefined, grant("k2", "e2"), undefined])
    entries.message("empresa:e2")
    expect(entries.get("h2")).toBeUndefined()
  })

  it("evicts access tokens by session and by user, and keeps out a token lookup an ended session overtook", () => {
    const entries = authEntries({ live: true })
    const later = Date.now() + 60_000
    const tokenLookup = (digest: string, value: VerifiedToken) => {
      const since = entries.epoch()
      return () => entries.putToken(digest, value, later, since)
    }
    tokenLookup("t1", token("u1", "s1"))()
    tokenLookup("t2", token("u1", "s2"))()
    tokenLookup("t3", token("u2", "s3"))()
    lookup(entries, "h1", grant("k1"))()
    const overtaken = tokenLookup("t4", token("u2", "s4"))
    entries.message("session:s1")
    overtaken()
    expect([entries.token("t1"), entries.token("t2"), entries.token("t4")]).toEqual([
      undefined,
      token("u1", "s2"),
      undefined
    ])
    entries.message("user:u2")
    expect([entries.token("t2"), entries.token("t3"), entries.get("h1")]).toEqual([
      token("u1", "s2"),
      undefined,
      grant("k1")
    ])
    // Kept no longer than the token itself lives.
    const since = entries.epoch()
    entries.putToken("t5", token("u3", "s5"), Date.now() - 1, since)
    expect(entries.token("t5")).toBeUndefined()
  })
})
