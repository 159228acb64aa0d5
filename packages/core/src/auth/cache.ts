import { PgClient } from "@effect/sql-pg"
import { Effect, Stream } from "effect"
import { Config } from "../config.js"
import type { Principal } from "./principal.js"

/** A successful authentication, as cached. */
export interface Authenticated {
  readonly principal: Principal
  /** The rate-limit budget it counts against. */
  readonly bucket: string
  readonly keyId: string
  readonly empresaId: string
}

const CHANNEL = "fidelis_auth"
/** A backstop only: revocations and plan changes evict at once (and across processes by NOTIFY). */
const TTL_MS = 60_000
const MAX_ENTRIES = 10_000

/**
 * Keys seen recently, by hash, so an authenticated request costs no round trip. Anything that
 * changes what a key may do (revocation, `api_access`) evicts here and tells every other process
 * on the database through LISTEN/NOTIFY; the embedded database has a single process, so local
 * eviction is the whole story there.
 */
export class AuthCache extends Effect.Service<AuthCache>()("core/AuthCache", {
  scoped: Effect.gen(function* () {
    const config = yield* Config
    const pg = yield* PgClient.PgClient
    const entries = new Map<string, { readonly value: Authenticated; readonly expires: number }>()
    const shared = config.databaseUrl !== undefined

    // Bumped by every eviction: a lookup that raced with one must not cache what it read.
    let epoch = 0
    const evictWhere = (matches: (value: Authenticated) => boolean) => {
      epoch++
      for (const [hash, entry] of entries) if (matches(entry.value)) entries.delete(hash)
    }
    const apply = (message: string) => {
      const [kind, id] = message.split(":")
      if (kind === "key") evictWhere((v) => v.keyId === id)
      else if (kind === "empresa") evictWhere((v) => v.empresaId === id)
      else evictWhere(() => true)
    }

    if (shared) {
      yield* pg.listen(CHANNEL).pipe(
        Stream.runForEach((message) => Effect.sync(() => apply(message))),
        // A lost listener must not leave stale grants: drop everything and listen again.
        Effect.tapErrorCause(() => Effect.sync(() => evictWhere(() => true))),
        Effect.retry({ times: 1_000_000 }),
        Effect.forkScoped
      )
    }

    const get = (hash: string): Authenticated | undefined => {
      const entry = entries.get(hash)
      if (entry === undefined) return undefined
      if (entry.expires < Date.now()) {
        entries.delete(hash)
        return undefined
      }
      return entry.value
    }

    /** Caches a lookup that began at `since` (an `epoch()`), unless an eviction happened meanwhile. */
    const put = (hash: string, value: Authenticated, since: number) => {
      if (since !== epoch) return
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
      entries.set(hash, { value, expires: Date.now() + TTL_MS })
    }

    // pg_notify, not the client's notify(): NOTIFY takes no bind parameters.
    const publish = (message: string) =>
      Effect.sync(() => apply(message)).pipe(
        Effect.zipRight(shared ? pg`SELECT pg_notify(${CHANNEL}, ${message})` : Effect.void),
        Effect.asVoid
      )

    return {
      epoch: () => epoch,
      get,
      put,
      /** After a key's revocation commits. */
      keyChanged: (keyId: string) => publish(`key:${keyId}`),
      /** After an empresa's plan or access changes. */
      empresaChanged: (empresaId: string) => publish(`empresa:${empresaId}`)
    } as const
  })
}) {}
