import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Config } from "../config.js"
import { RateLimited } from "../errors.js"

/** One subject failed logins count against, with its thresholds. */
export interface Subject {
  readonly key: string
  readonly slowAfter: number
  readonly lockAfter: number
}

/** The longest wait of the slow-down, before the lockout takes over. */
const MAX_DELAY_SECONDS = 60

/**
 * Repeated login failures (docs/decisions.md "Login throttling"), per account and per client
 * address: past `slowAfter` failures each further try waits 2, 4, 8… seconds after the last
 * failure (a 429 with Retry-After); at `lockAfter` the subject is locked for FIDELIS_LOGIN_LOCK_SECONDS.
 * Failures older than FIDELIS_LOGIN_WINDOW_SECONDS are forgotten; a success clears the account's.
 * Counted in Postgres, so every server process on the database shares the count.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("core/LoginThrottle", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { accounts: config } = yield* Config

    const subjectsOf = (email: string, address: string | undefined): ReadonlyArray<Subject> => [
      {
        key: `account:${email.trim().toLowerCase()}`,
        slowAfter: config.loginSlowAfter,
        lockAfter: config.loginLockAfter
      },
      ...(address === undefined
        ? []
        : [{ key: `ip:${address}`, slowAfter: config.loginIpSlowAfter, lockAfter: config.loginIpLockAfter }])
    ]

    /** Refuses a try while any subject is slowed down or locked. */
    const check = (subjects: ReadonlyArray<Subject>) =>
      Effect.gen(function* () {
        for (const subject of subjects) {
          const [row] = yield* sql<{ wait: number }>`
            SELECT ceil(greatest(
                     extract(epoch FROM locked_until - now()),
                     CASE WHEN failures >= ${subject.slowAfter}
                       THEN extract(epoch FROM last_failure_at - now())
                            + least(power(2, failures - ${subject.slowAfter} + 1), ${MAX_DELAY_SECONDS})
                       ELSE 0 END,
                     0))::int AS wait
            FROM login_throttle
            WHERE subject = ${subject.key}
              AND last_failure_at > now() - make_interval(secs => ${config.loginWindowSeconds})`
          if (row !== undefined && row.wait > 0) return yield* new RateLimited({ retryAfter: row.wait })
        }
      })

    const failed = (subjects: ReadonlyArray<Subject>) =>
      Effect.forEach(
        subjects,
        (subject) => sql`
          INSERT INTO login_throttle AS t (subject, failures, last_failure_at)
          VALUES (${subject.key}, 1, now())
          ON CONFLICT (subject) DO UPDATE SET
            failures = CASE WHEN t.last_failure_at > now() - make_interval(secs => ${config.loginWindowSeconds})
                         THEN t.failures + 1 ELSE 1 END,
            last_failure_at = now(),
            locked_until = CASE
              WHEN (CASE WHEN t.last_failure_at > now() - make_interval(secs => ${config.loginWindowSeconds})
                      THEN t.failures + 1 ELSE 1 END) >= ${subject.lockAfter}
              THEN now() + make_interval(secs => ${config.loginLockSeconds})
              ELSE t.locked_until END`,
        { discard: true }
      )

    /** A success clears the account's failures; the address's stay, as it may be guessing many accounts. */
    const succeeded = (subjects: ReadonlyArray<Subject>) =>
      sql`DELETE FROM login_throttle WHERE subject = ${subjects[0]!.key}`.pipe(Effect.asVoid)

    return { subjectsOf, ...sqlErrorsAsDefects({ check, failed, succeeded }) }
  })
}) {}
