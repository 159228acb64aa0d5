import { afterEach, describe, expect, it, vi } from "vitest"
import { expiringMap } from "../src/expiring-map.js"

afterEach(() => vi.useRealTimers())

describe("the hot path's expiring map", () => {
  it("forgets an entry once its time is up", () => {
    vi.useFakeTimers({ now: 1_000 })
    const map = expiringMap<string, number>(10)
    map.set("a", 1, 2_000)
    expect(map.get("a")).toBe(1)
    vi.setSystemTime(2_000)
    expect(map.get("a")).toBeUndefined()
  })

  it("when full, lets the oldest entry go, but not for a key it already holds", () => {
    const map = expiringMap<string, number>(2)
    const later = Date.now() + 60_000
    map.set("a", 1, later)
    map.set("b", 2, later)
    map.set("b", 3, later)
    expect([map.get("a"), map.get("b")]).toEqual([1, 3])
    map.set("c", 4, later)
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([undefined, 3, 4])
  })

  it("counts a key set again as the newest entry", () => {
    const map = expiringMap<string, number>(2)
    const later = Date.now() + 60_000
    map.set("a", 1, later)
    map.set("b", 2, later)
    map.set("a", 3, later)
    map.set("c", 4, later)
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([3, undefined, 4])
  })

  it("deletes every entry a predicate picks", () => {
    const map = expiringMap<string, number>(10)
    const later = Date.now() + 60_000
    for (const [key, value] of [
      ["a", 1],
      ["b", 2],
      ["c", 3]
    ] as const)
      map.set(key, value, later)
    map.deleteWhere((value) => value % 2 === 1)
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([undefined, 2, undefined])
  })
})
