import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { listen, LISTENER_APPLICATION } from "@fidelis/db"
import { Duration, Effect, Runtime } from "effect"
import { randomUUID } from "node:crypto"
import { Config, directDatabaseUrl } from "./config.js"
import { expiringMap } from "./expiring-map.js"
import type { EmpresaId, KeyId, UserId } from "./ids.js"
import type { Principal } from "./principal.js"

/** A successful authentication, as cached. */
export interface Authenticated {
  readonly principal: Principal
  /** The rate-limit budget it counts against. */
  readonly bucket: string
  readonly keyId: KeyId
  readonly empresaId: EmpresaId
}

/** An end user's access token, verified, as cached: its user and the session it dies with. */
export interface VerifiedToken {
  readonly userId: UserId
  readonly sessionId: string
}

const CHANNEL = "fidelis_auth"
/**
 * A backstop only: revocations, plan changes and ended sessions evict at once (and across processes
 * by NOTIFY).
 */
const TTL_MS = 60_000
const MAX_ENTRIES = 10_000

const none = () => false
const all = () => true

/**
 * The cached authentications (API keys, and end users' access tokens) and the rules that keep them
 * honest, apart from the database. On a shared database an entry is only as good as the listener
 * that would evict it, so this is that listener's subscriber: nothing is cached until LISTEN is
 * confirmed (`live`), everything is dropped the moment the listener's connection is lost (a
 * database restart), and a lookup that overlapped any eviction or change of the listener's state is
 * not cached. A gap costs a round trip per request until it closes, never a stale grant.
 */
export const authEntries = (options: { readonly live: boolean }) => {
  const entries = expiringMap<string, Authenticated>(MAX_ENTRIES)
  const tokens = expiringMap<string, VerifiedToken>(MAX_ENTRIES)
  let live = options.live
  // Bumped by every eviction and every change of the listener's state.
  let epoch = 0
  const evictWhere = (keys: (value: Authenticated) => boolean, sessions: (value: VerifiedToken) => boolean) => {
    epoch++
    entries.deleteWhere(keys)
    tokens.deleteWhere(sessions)
  }
  return {
    epoch: () => epoch,
    get: entries.get,
    /** Caches a lookup that began at `since` (an `epoch()`), unless anything was evicted meanwhile. */
    put: (hash: string, value: Authenticated, since: number) => {
      if (!live || since !== epoch) return
      entries.set(hash, value, Date.now() + TTL_MS)
    },
    token: tokens.get,
    /** `put` for an access token (by its digest), kept no longer than the token lives (`expires`, epoch ms). */
    putToken: (digest: string, value: VerifiedToken, expires: number, since: number) => {
      if (!live || since !== epoch) return
      tokens.set(digest, value, Math.min(expires, Date.now() + TTL_MS))
    },
    /**
     * An eviction, from this process or another: `key:<id>`, `empresa:<id>`, `session:<id>`,
     * `user:<id>` (every session of the user), anything else is all.
     */
    message: (message: string) => {
      const [kind, id] = message.split(":")
      if (kind === "key") evictWhere((v) => v.keyId === id, none)
      else if (kind === "empresa") evictWhere((v) => v.empresaId === id, none)
      else if (kind === "session") evictWhere(none, (v) => v.sessionId === id)
      else if (kind === "user") evictWhere(none, (v) => v.userId === id)
      else evictWhere(all, all)
    },
    // A lookup that began before LISTEN was in place may have read a grant whose revocation this
    // process never heard of.
    live: () => {
      evictWhere(all, all)
      live = true
    },
    lost: () => {
      live = false
      evictWhere(all, all)
    }
  }
}

/** How long a change waits for every other process to confirm its eviction before it returns anyway. */
const CONFIRM_TIMEOUT = Duration.seconds(2)

/**
 * Keys and access tokens seen recently, by hash, so an authenticated request costs no round trip.
 * Anything that changes what a key may do (revocation, `api_access`) or ends a session evicts here
 * and tells every other process on the database through LISTEN/NOTIFY; the embedded database has a
 * single process, so local eviction is the whole story there.
 *
 * A notification reaches another process some milliseconds after the commit, more when that
 * process is busy, and a request there could be served from its cache meanwhile. So a change is
 * confirmed: every process acknowledges an eviction once it has applied it (`ack:<nonce>:<pid>`,
 * named by its listener's backend), and the change returns only when every listener the database
 * knew of at the commit has, or after CONFIRM_TIMEOUT.
 */
export class AuthCache extends Effect.Service<AuthCache>()("core/AuthCache", {
  scoped: Effect.gen(function* () {
    const config = yield* Config
    const sql = yield* SqlClient.SqlClient
    const runtime = yield* Effect.runtime<never>()
    // LISTEN needs a session of its own: through a transaction pooler it would hold nothing.
    const url = directDatabaseUrl(config)
    const entries = authEntries({ live: url === undefined })
    // Our listener's backend while it is live: the name we acknowledge under.
    let self: number | undefined
    // Changes made here that wait for confirmations: the listeners heard from so far, by nonce.
    const confirmations = new Map<string, { readonly heard: Set<number>; onAck: () => void }>()

    /** `key:<id>:<nonce>` and `empresa:<id>:<nonce>` evict and are acknowledged; `ack:<nonce>:<pid>` confirms. */
    const onMessage = (message: string) => {
      const [kind, subject, detail] = message.split(":")
      if (kind === "ack") {
        const confirmation = confirmations.get(subject!)
        confirmation?.heard.add(Number(detail))
        confirmation?.onAck()
        return
      }
      entries.message(message)
      // Our own changes are confirmed by having applied them before waiting.
      if (detail === undefined || self === undefined || confirmations.has(detail)) return
      Runtime.runFork(runtime)(sql`SELECT pg_notify(${CHANNEL}, ${`ack:${detail}:${self}`})`.pipe(Effect.ignore))
    }

    if (url !== undefined) {
      yield* listen(url, CHANNEL, {
        live: (pid) => {
          self = pid
          entries.live()
        },
        lost: () => {
          self = undefined
          entries.lost()
        },
        message: onMessage
      })
    }

    /** Waits until every listener in `listeners` but ours has acknowledged `nonce`. */
    const confirmed = (nonce: string, listeners: ReadonlyArray<number>) => {
      const confirmation = confirmations.get(nonce)!
      const missing = () => listeners.filter((pid) => pid !== self && !confirmation.heard.has(pid))
      return Effect.async<void>((resume) => {
        confirmation.onAck = () => {
          if (missing().length > 0) return
          confirmation.onAck = () => undefined
          resume(Effect.void)
        }
        confirmation.onAck()
      }).pipe(
        Effect.timeoutFail({ duration: CONFIRM_TIMEOUT, onTimeout: () => missing() }),
        Effect.catchAll((pids) => Effect.logWarning("Auth cache eviction not confirmed in time", { listeners: pids }))
      )
    }

    const evict = (message: string | undefined) => Effect.sync(() => message !== undefined && entries.message(message))

    /**
     * Wraps the write that changes what keys may do, or ends sessions; `messageOf` names what it
     * evicts, from what the write returned (nothing: it changed nothing). Its NOTIFY goes in the
     * write's transaction, so Postgres sends it at the commit itself (never a commit without one);
     * this process evicts once the write has committed, then waits for the others to confirm. Not
     * for a write inside a wider transaction: its NOTIFY would only leave at that one's commit,
     * after the wait.
     */
    const changing = <A, E, R>(
      write: Effect.Effect<A, E, R>,
      messageOf: (value: A) => string | undefined
    ): Effect.Effect<A, E | SqlError, R> => {
      if (url === undefined) return Effect.tap(write, (value) => evict(messageOf(value)))
      const nonce = randomUUID()
      return Effect.acquireUseRelease(
        // Registered before the commit: an acknowledgement may arrive before the commit's reply.
        Effect.sync(() => confirmations.set(nonce, { heard: new Set(), onAck: () => undefined })),
        () =>
          sql
            .withTransaction(
              Effect.flatMap(write, (value) => {
                const message = messageOf(value)
                const notified: Effect.Effect<ReadonlyArray<number>, SqlError> = message === undefined
                  ? Effect.succeed([])
                  : Effect.map(
                      sql<{ listeners: number[] }>`
                          SELECT pg_notify(${CHANNEL}, ${`${message}:${nonce}`}),
                            array(SELECT pid FROM pg_stat_activity
                                  WHERE datname = current_database()
                                    AND application_name = ${LISTENER_APPLICATION}) AS listeners`,
                      ([row]) => row!.listeners
                    )
                return Effect.map(notified, (listeners) => ({ value, message, listeners }))
              })
            )
            .pipe(
              Effect.tap(({ message }) => evict(message)),
              Effect.tap(({ listeners }) => confirmed(nonce, listeners)),
              Effect.map(({ value }) => value)
            ),
        () => Effect.sync(() => confirmations.delete(nonce))
      )
    }

    return {
      epoch: entries.epoch,
      get: entries.get,
      put: entries.put,
      token: entries.token,
      putToken: entries.putToken,
      /** Wraps a key's revocation. */
      keyChange:
        (keyId: KeyId) =>
        <A, E, R>(write: Effect.Effect<A, E, R>) =>
          changing(write, () => `key:${keyId}`),
      /** Wraps a change of an empresa's plan or access. */
      empresaChange:
        (empresaId: EmpresaId) =>
        <A, E, R>(write: Effect.Effect<A, E, R>) =>
          changing(write, () => `empresa:${empresaId}`),
      /** Wraps the end of one session (`sessionOf` the write's result: the session it ended, if any). */
      sessionEnd: <A, E, R>(write: Effect.Effect<A, E, R>, sessionOf: (value: A) => string | undefined) =>
        changing(write, (value) => {
          const session = sessionOf(value)
          return session === undefined ? undefined : `session:${session}`
        }),
      /** Wraps the end of every session of the user `userOf` the write's result names. */
      userSessionsEnd: <A, E, R>(write: Effect.Effect<A, E, R>, userOf: (value: A) => UserId) =>
        changing(write, (value) => `user:${userOf(value)}`)
    } as const
  })
}) {}
