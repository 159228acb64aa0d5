/**
 * A map whose entries expire and whose size is bounded: the in-process caches of the hot path keep
 * what a lookup found (a key's grant, a verified token) for a short while. When full, the oldest
 * entry goes first, so a flood of new keys cannot grow the process.
 */
export const expiringMap = <K, V>(maxEntries: number) => {
  const entries = new Map<K, { readonly value: V; readonly expires: number }>()
  return {
    get: (key: K): V | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expires <= Date.now()) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },
    /** `expires`: epoch milliseconds. */
    set: (key: K, value: V, expires: number) => {
      // Taken out first, so that a key set again is the newest entry, not evicted as the oldest.
      entries.delete(key)
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, expires })
    },
    deleteWhere: (matches: (value: V) => boolean) => {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key)
    }
  }
}
