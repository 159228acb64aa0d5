import { describe, expect, it } from "vitest"
import { authEntries, type Authenticated } from "../src/auth/cache.js"
import type { EmpresaId, KeyId } from "../src/ids.js"

const grant = (key: string, empresa = "e1"): Authenticated => {
  const [keyId, empresaId] = [key as KeyId, empresa as EmpresaId]
  return { principal: { kind: "company", keyId, empresaId }, bucket: `key:${keyId}`, keyId, empresaId }
}

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
})
