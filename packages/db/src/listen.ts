import { Deferred, Duration, Effect, Exit, type Scope } from "effect"
import pg from "pg"

/** What a listener reports; every call is synchronous, made as the event arrives. */
export interface Subscriber {
  /** LISTEN is in place on the server process `pid`: every notification committed from now on will arrive. */
  readonly live: (pid: number) => void
  /** Listening stopped: notifications may be missed until `live` is called again. */
  readonly lost: () => void
  readonly message: (payload: string) => void
}

/** Names listener connections, so a process can find every listener on its database in pg_stat_activity. */
export const LISTENER_APPLICATION = "fidelis-listener"

/** A connection that died without a reset (a crashed host) is noticed within these two. */
const HEARTBEAT = Duration.seconds(5)
const HEARTBEAT_TIMEOUT = Duration.seconds(5)
const CONNECT_TIMEOUT_MS = 5_000
const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 2_000

const heartbeat = (client: pg.Client) =>
  Effect.tryPromise(() => client.query("SELECT 1")).pipe(
    Effect.timeoutFail({ duration: HEARTBEAT_TIMEOUT, onTimeout: () => new Error("LISTEN connection unresponsive") }),
    Effect.delay(HEARTBEAT),
    Effect.forever
  )

/**
 * One connection's life: connect, LISTEN, report it live, then wait until it closes or stops
 * answering. The loss is reported from the connection's own error or close event, before anything
 * else can run, and at the latest when the heartbeat gives up.
 */
const session = (url: string, channel: string, subscriber: Subscriber) =>
  Effect.scoped(
    Effect.gen(function* () {
      const closed = yield* Deferred.make<never, Error>()
      let live = false
      const lose = () => {
        if (!live) return
        live = false
        subscriber.lost()
      }
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise(async () => {
          const connection = new pg.Client({
            connectionString: url,
            application_name: LISTENER_APPLICATION,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS
          })
          // Also keeps an error event from crashing the process: every one is a lost connection.
          connection.on("error", lose)
          connection.once("end", () => {
            lose()
            Deferred.unsafeDone(closed, Exit.fail(new Error("LISTEN connection closed")))
          })
          await connection.connect()
          return connection
        }),
        (connection) => Effect.promise(() => connection.end()).pipe(Effect.timeoutOption(1000))
      )
      client.on("notification", (notification) => {
        if (notification.channel === channel && notification.payload) subscriber.message(notification.payload)
      })
      yield* Effect.tryPromise(() => client.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      const { rows } = yield* Effect.tryPromise(() => client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))
      live = true
      subscriber.live(rows[0]!.pid)
      return yield* Effect.raceFirst(Deferred.await(closed), heartbeat(client)).pipe(Effect.ensuring(Effect.sync(lose)))
    })
  )

/**
 * Listens on `channel` on a connection of its own for as long as the scope lives, reconnecting
 * with backoff for ever. @effect/sql-pg's `listen` is not used: it swallows its connection's
 * errors, so after a database restart its stream neither ends nor fails and nothing arrives again.
 * Here every gap is reported (`lost`, then `live` once LISTEN is back), so a subscriber that
 * depends on every notification can tell when it may have missed some.
 */
export const listen = (
  url: string,
  channel: string,
  subscriber: Subscriber
): Effect.Effect<void, never, Scope.Scope> => {
  let failures = 0
  let wasLive = false
  const tracked: Subscriber = {
    ...subscriber,
    live: (pid) => {
      failures = 0
      wasLive = true
      subscriber.live(pid)
    }
  }
  const backoff = Effect.suspend(() =>
    Effect.sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** failures++) * (0.5 + Math.random() / 2))
  )
  const attempt = session(url, channel, tracked).pipe(
    Effect.catchAllCause((cause) => {
      if (!wasLive) return Effect.void
      wasLive = false
      return Effect.logWarning("LISTEN connection lost; reconnecting", cause).pipe(
        Effect.annotateLogs("channel", channel)
      )
    }),
    Effect.zipRight(backoff)
  )
  return Effect.forkScoped(Effect.forever(attempt)).pipe(Effect.asVoid)
}
