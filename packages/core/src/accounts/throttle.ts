import { SqlClient } from "@effect/sql"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Config } from "../config.js"
import { RateLimited } from "../errors.js"

/** One subject failed logins count against, with its thresholds. */
export interface Subject {
  readonly key: string
  readonly slowAfter: number
  readonly lockAfter: number
  /** Why its tries are refused, for people: how the owner gets in meanwhile. */
  readonly refusal: string
}

/**
 * The same for every email, known or not (no enumeration); it names the way in that a lock leaves
 * the owner (docs/decisions.md "Lockout and the owner").
 */
const ACCOUNT_REFUSAL =
  "Too many failed logins for this email: to get in now, ask for a password-reset link " +
  "(POST /api/v1/auth/request-password-reset)"

const ADDRESS_REFUSAL = "Too many failed logins from this network address"

/** The longest wait of the slow-down, before the lockout takes over. */
const MAX_DELAY_SECONDS = 60

/**
 * Repeated login failures (docs/decisions.md "Login throttling", "Login tries counted before the
 * password"), per account and per client address: past `slowAfter` failures each further try waits
 * 2, 4, 8… seconds after the last failure (a 429 with Retry-After); at `lockAfter` the subject is
 * locked for FIDELIS_LOGIN_LOCK_SECONDS. Failures older than FIDELIS_LOGIN_WINDOW_SECONDS are
 * forgotten; a success clears the account's. Counted in Postgres, so every server process on the
 * database shares the count.
 *
 * A try is counted as a failure before its password is checked (`reserve`), by one conditional
 * upsert per subject that refuses it while the subject waits or is locked: however many tries run
 * in parallel, no more passwords are checked than the thresholds allow. A success, or a try that
 * checked no password, gives its count back.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("core/LoginThrottle", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { accounts: config } = yield* Config

    const subjectsOf = (email: string, address: string | undefined): ReadonlyArray<Subject> => [
      {
        key: `account:${email.trim().toLowerCase()}`,
        slowAfter: config.loginSlowAfter,
        lockAfter: config.loginLockAfter,
        refusal: ACCOUNT_REFUSAL
      },
      ...(address === undefined
        ? []
        : [
            {
              key: `ip:${address}`,
              slowAfter: config.loginIpSlowAfter,
              lockAfter: config.loginIpLockAfter,
              refusal: ADDRESS_REFUSAL
            }
          ])
    ]

    const recent = sql`make_interval(secs => ${config.loginWindowSeconds})`

    /** The row `t`'s failures counting one more, the older ones forgotten. */
    const failuresWithThisTry = sql`(CASE WHEN t.last_failure_at > now() - ${recent} THEN t.failures + 1 ELSE 1 END)`

    /** Seconds a subject's next try must wait (0 or less: it may try), from its row `t`. */
    const waitOf = (subject: Subject) => sql`greatest(
      extract(epoch FROM t.locked_until - now()),
      CASE WHEN t.failures >= ${subject.slowAfter}
        THEN extract(epoch FROM t.last_failure_at - now())
             + least(power(2, t.failures - ${subject.slowAfter} + 1), ${MAX_DELAY_SECONDS})
        ELSE 0 END)`

    /**
     * Counts one try against the subject, unless it must wait: then nothing changes and the wait is
     * returned, read from the row as this statement's snapshot saw it (at least 1 s). The upsert
     * decides on the row's latest version, which it locks: concurrent tries take turns.
     */
    const reserveOne = (subject: Subject) =>
      Effect.gen(function* () {
        const [row] = yield* sql<{ wait: number }>`
          WITH tried AS (
            INSERT INTO login_throttle AS t (subject, failures, last_failure_at) VALUES (${subject.key}, 1, now())
            ON CONFLICT (subject) DO UPDATE SET
              failures = ${failuresWithThisTry},
              last_failure_at = now(),
              locked_until = CASE WHEN ${failuresWithThisTry} >= ${subject.lockAfter}
                THEN now() + make_interval(secs => ${config.loginLockSeconds})
                ELSE t.locked_until END
            WHERE t.last_failure_at <= now() - ${recent} OR coalesce(${waitOf(subject)}, 0) <= 0
            RETURNING 0 AS wait)
          SELECT wait FROM tried
          UNION ALL
          SELECT coalesce((SELECT greatest(ceil(${waitOf(subject)}), 1)::int FROM login_throttle t
                           WHERE subject = ${subject.key}), 1)
          WHERE NOT EXISTS (SELECT 1 FROM tried)`
        if (row !== undefined && row.wait > 0) {
          return yield* new RateLimited({ retryAfter: row.wait, reason: subject.refusal })
        }
      })

    /** Counts a try against every subject before its password is checked, or refuses it (429) and counts nothing. */
    const reserve = (subjects: ReadonlyArray<Subject>) =>
      inTransaction(sql)(Effect.forEach(subjects, reserveOne, { discard: true }))

    /** Gives a try's count back. */
    const giveBack = (subject: Subject) => sql`
      UPDATE login_throttle SET
        failures = greatest(failures - 1, 0),
        locked_until = CASE WHEN failures - 1 >= ${subject.lockAfter} THEN locked_until END
      WHERE subject = ${subject.key}`

    /** A try that checked no password (the hashing queue refused it) counts for nothing. */
    const release = (subjects: ReadonlyArray<Subject>) => Effect.forEach(subjects, giveBack, { discard: true })

    /**
     * A success clears the account's failures (the first subject); the address's keep all but this
     * try's, as the address may be guessing many accounts.
     */
    const succeeded = (subjects: ReadonlyArray<Subject>) =>
      Effect.zipRight(
        sql`DELETE FROM login_throttle WHERE subject = ${subjects[0]!.key}`,
        Effect.forEach(subjects.slice(1), giveBack, { discard: true })
      )

    return { subjectsOf, ...sqlErrorsAsDefects({ reserve, release, succeeded }) }
  })
}) {}
