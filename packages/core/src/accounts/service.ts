import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { AuthCache } from "../auth-cache.js"
import { Config } from "../config.js"
import { humanCode } from "../codes.js"
import { Conflict, NotFound, Unauthenticated, ValidationFailed } from "../errors.js"
import type { UserId } from "../ids.js"
import { Jobs } from "../jobs/service.js"
import type {
  AccountUser,
  LoginInput,
  RegisterInput,
  Session,
  TokenPair,
  UpdateProfileInput,
  UserProfile
} from "./contracts.js"
import { ACCOUNT_MAIL_LIMIT as limit, ACCOUNT_MAIL_QUEUE, LINK_LIFETIMES, type LinkPurpose } from "./mail.js"
import { passwordProblem } from "./password-policy.js"
import { hashPassword, PasswordHashing } from "./passwords.js"
import { canonicalEmail } from "./same-person.js"
import { AccessTokens } from "./tokens.js"
import { LoginThrottle } from "./throttle.js"
import { verifiedTokens } from "./verified-tokens.js"
import { traced } from "../tracing.js"

/** The client record of a user at one empresa, which the stores' procedures of the end-user API act on. */
export { userClientAt, type UserClient } from "./user-clients.js"

const DAY = 24 * 60 * 60

/** Refresh-token lifetimes (spec 5.6). */
export const REFRESH_LIFETIME_SECONDS = { normal: 7 * DAY, rememberMe: 30 * DAY } as const

const LOGIN_FAILED = "Invalid email or password"
const REFRESH_FAILED = "Invalid, expired or revoked refresh token: log in again"
const SESSION_ENDED = "Session ended: log in again"

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

const newRefreshToken = () => `rt_${randomBytes(32).toString("base64url")}`

const linkNotFound = () => new NotFound({ resource: "Link", id: "token" })

/** Refuses (422 at body.password) a new password the policy does not allow, saying why. */
const allowedPassword = (password: string, account: { readonly email: string; readonly nome: string }) => {
  const issue = passwordProblem(password, account)
  return issue === undefined ? Effect.void : Effect.fail(new ValidationFailed({ issues: [issue] }))
}

interface UserRow extends AccountUser {
  readonly password_hash: string | null
}

/**
 * End-user accounts and sessions (docs/architecture.md, "End users"; docs/decisions.md "End-user accounts").
 * A session is a `sessions` row: a family of opaque refresh tokens of which exactly one is live
 * (each refresh rotates it, and presenting a rotated one again ends the session: theft detection),
 * and the access tokens (JWTs, AccessTokens) issued with them, which name it (`sid`) and die with it
 * (docs/decisions.md "Access tokens die with their session").
 */
export class Accounts extends Effect.Service<Accounts>()("core/Accounts", {
  accessors: true,
  dependencies: [AccessTokens.Default, AuthCache.Default, LoginThrottle.Default, PasswordHashing.Default, Jobs.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { accounts: config } = yield* Config
    const tokens = yield* AccessTokens
    const throttle = yield* LoginThrottle
    const passwords = yield* PasswordHashing
    const jobs = yield* Jobs
    const cache = yield* AuthCache

    /**
     * A hash to compare against when the email is unknown, so a miss costs what a wrong password
     * does (made once at start-up, outside the queue: nothing waits on it yet).
     */
    const decoy = yield* hashPassword(randomBytes(16).toString("hex"), config.passwordCost)

    /** A new refresh token of the session `familyId`, in the caller's transaction. */
    const issueRefresh = (userId: UserId, familyId: string, lifetime: number, rememberMe: boolean) =>
      Effect.gen(function* () {
        const token = newRefreshToken()
        yield* sql`
          INSERT INTO refresh_tokens (user_id, family_id, token_hash, remember_me, expires_at)
          VALUES (${userId}, ${familyId}, ${sha256(token)}, ${rememberMe}, now() + make_interval(secs => ${lifetime}))`
        return token
      })

    const accessFor = (userId: UserId, sessionId: string) =>
      tokens.sign("access", userId, new Date(Date.now() + config.accessTokenSeconds * 1000), { sid: sessionId })

    const pairOf = (userId: UserId, familyId: string, rememberMe: boolean) =>
      Effect.gen(function* () {
        const lifetime = rememberMe ? REFRESH_LIFETIME_SECONDS.rememberMe : REFRESH_LIFETIME_SECONDS.normal
        const refresh_token = yield* issueRefresh(userId, familyId, lifetime, rememberMe)
        return {
          access_token: yield* accessFor(userId, familyId),
          refresh_token,
          token_type: "bearer",
          expires_in: config.accessTokenSeconds,
          refresh_expires_in: lifetime
        } satisfies TokenPair
      })

    /**
     * Opens a session for a login with the password it checked, in the caller's transaction; none
     * (a refusal) when the password changed meanwhile. The row lock makes a password reset that began
     * meanwhile wait for this commit and then end the session, so no login that checked the old
     * password outlives the reset.
     */
    const openSession = (userId: UserId, passwordHash: string, rememberMe: boolean) =>
      Effect.gen(function* () {
        const [session] = yield* sql<{ id: string }>`
          INSERT INTO sessions (user_id)
          SELECT id FROM users WHERE id = ${userId} AND password_hash = ${passwordHash} FOR SHARE
          RETURNING id`
        if (session === undefined) return yield* new Unauthenticated({ message: LOGIN_FAILED })
        return yield* pairOf(userId, session.id, rememberMe)
      })

    /** Ends every live session of the user, in the caller's transaction (its eviction: `userSessionsEnd`). */
    const endSessionsOf = (userId: UserId) =>
      sql`UPDATE sessions SET ended_at = now() WHERE user_id = ${userId} AND ended_at IS NULL`

    /** Runs the statement that ends a session (returning its id if it did); evicts its access tokens everywhere. */
    const endSession = (write: Effect.Effect<ReadonlyArray<{ readonly id: string }>, SqlError>) =>
      cache.sessionEnd(write, ([ended]) => ended?.id)

    /**
     * Queues an account email (verification, reset) in the caller's transaction, unless the account
     * had `limit.mails` within `limit.seconds` already: then nothing is sent, and the caller's
     * answer stays the same. The account's row is locked first, so parallel requests count in turn.
     */
    const sendLink = (userId: UserId, email: string, purpose: LinkPurpose) =>
      Effect.gen(function* () {
        yield* sql`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`
        const [row] = yield* sql<{ id: string }>`
          INSERT INTO account_tokens (user_id, purpose, email, expires_at)
          SELECT ${userId}, ${purpose}, ${email}, now() + make_interval(secs => ${LINK_LIFETIMES[purpose]})
          WHERE (SELECT count(*) FROM account_tokens
                 WHERE user_id = ${userId} AND created_at > now() - make_interval(secs => ${limit.seconds})
                   AND sent_with IS NULL)
                < ${limit.mails}
          RETURNING id`
        if (row === undefined) {
          return yield* Effect.logWarning("Account email not sent: the address had its hourly limit").pipe(
            Effect.annotateLogs({ user_id: userId, purpose })
          )
        }
        yield* jobs.enqueue({ queue: ACCOUNT_MAIL_QUEUE, payload: { token_id: row.id } })
      })

    /**
     * Creates the account, or claims the password-less user row a company's client with this email
     * made (docs/decisions.md "Account linking"): its clients' balances show once the email is verified.
     */
    const register = traced("Accounts.register")(function* (input: RegisterInput) {
      yield* allowedPassword(input.password, input)
      const passwordHash = yield* passwords.hash(input.password)
      return yield* inTransaction(sql)(
        Effect.gen(function* () {
          if (input.referral_code !== undefined) {
            const [referrer] = yield* sql<{ email: string; cpf: string | null }>`
              SELECT email, cpf FROM users
              WHERE referral_code = ${input.referral_code.toUpperCase()} AND password_hash IS NOT NULL`
            // The same mailbox (`ana+2@`, `a.na@gmail.com`) or CPF is the same person: nobody refers
            // themselves with a second account.
            const self =
              referrer !== undefined &&
              (canonicalEmail(referrer.email) === canonicalEmail(input.email) ||
                (input.cpf !== undefined && referrer.cpf === input.cpf))
            const issue =
              referrer === undefined
                ? { msg: "Unknown referral code", type: "referral_code_unknown" }
                : self
                  ? { msg: "A referral code cannot be your own", type: "self_referral" }
                  : undefined
            if (issue !== undefined) {
              return yield* new ValidationFailed({ issues: [{ loc: ["body", "referral_code"], ...issue }] })
            }
          }
          const [user] = yield* sql<AccountUser>`
            INSERT INTO users (email, nome, telefone, cpf, password_hash, referral_code, pending_referral_code,
                               registered_at)
            VALUES (${input.email}, ${input.nome}, ${input.telefone ?? null}, ${input.cpf ?? null}, ${passwordHash},
                    ${humanCode(10)}, ${input.referral_code?.toUpperCase() ?? null}, now())
            ON CONFLICT ((lower(email))) DO UPDATE SET
              email = EXCLUDED.email, nome = EXCLUDED.nome, telefone = EXCLUDED.telefone, cpf = EXCLUDED.cpf,
              password_hash = EXCLUDED.password_hash, pending_referral_code = EXCLUDED.pending_referral_code,
              registered_at = now(), updated_at = now()
            WHERE users.password_hash IS NULL
            RETURNING id, email, nome, telefone, created_at`
          if (user === undefined) {
            return yield* new Conflict({
              code: "EMAIL_TAKEN",
              message: "An account with this email already exists: log in, or reset the password"
            })
          }
          yield* sendLink(user.id, user.email, "verify_email")
          const pair = yield* openSession(user.id, passwordHash, false)
          return { message: "Account created; a verification link was sent to the email", user, ...pair } as Session
        })
      )
    })

    /**
     * One answer for an unknown email and a wrong password. The try counts as a failure before its
     * password is checked (parallel tries included); a success gives the count back.
     */
    const login = traced("Accounts.login")(function* (input: LoginInput, address: string | undefined) {
      const subjects = throttle.subjectsOf(input.email, address)
      yield* throttle.reserve(subjects)
      const [user] = yield* sql<UserRow>`
        SELECT id, email, nome, telefone, created_at, password_hash FROM users
        WHERE lower(email) = lower(${input.email})`
      const matches = yield* passwords
        .verify(input.password, user?.password_hash ?? decoy)
        .pipe(Effect.tapErrorTag("Unavailable", () => throttle.release(subjects)))
      if (user === undefined || user.password_hash === null || !matches) {
        return yield* new Unauthenticated({ message: LOGIN_FAILED })
      }
      yield* throttle.succeeded(subjects)
      const { password_hash: _, ...shown } = user
      const pair = yield* inTransaction(sql)(openSession(user.id, user.password_hash, input.remember_me))
      return { message: "Logged in", user: shown, ...pair } as Session
    })

    /**
     * Rotates a refresh token of a live session. The rotation is one conditional UPDATE, so of
     * concurrent refreshes with one token exactly one rotates it; every other presentation of a
     * rotated token (a replay, or one of those concurrent losers) ends the session, the new tokens
     * included.
     */
    const refresh = traced("Accounts.refresh")(function* (token: string) {
      const hash = sha256(token)
      const rotated = yield* inTransaction(sql)(
        Effect.gen(function* () {
          const [row] = yield* sql<{ user_id: UserId; family_id: string; remember_me: boolean }>`
            UPDATE refresh_tokens t SET rotated_at = now()
            FROM sessions s
            WHERE t.token_hash = ${hash} AND t.rotated_at IS NULL AND t.expires_at > now()
              AND s.id = t.family_id AND s.ended_at IS NULL
            RETURNING t.user_id, t.family_id, t.remember_me`
          if (row === undefined) return undefined
          return yield* pairOf(row.user_id, row.family_id, row.remember_me)
        })
      )
      if (rotated !== undefined) return rotated
      yield* endSession(sql<{ id: string }>`
        UPDATE sessions SET ended_at = now()
        WHERE ended_at IS NULL
          AND id = (SELECT family_id FROM refresh_tokens WHERE token_hash = ${hash} AND rotated_at IS NOT NULL)
        RETURNING id`)
      return yield* new Unauthenticated({ message: REFRESH_FAILED })
    })

    /** Ends the session the token belongs to; an unknown token changes nothing and says so no differently. */
    const logout = traced("Accounts.logout")(function* (token: string) {
      yield* endSession(sql<{ id: string }>`
        UPDATE sessions SET ended_at = now()
        WHERE ended_at IS NULL AND id = (SELECT family_id FROM refresh_tokens WHERE token_hash = ${sha256(token)})
        RETURNING id`)
      return { message: "Logged out" }
    })

    const verified = verifiedTokens(cache)

    /**
     * The registered user an access token names, when it was verified recently and its session has
     * not ended since: a plain function, so a request's admission can read it without running a
     * program.
     */
    const knownUser = (token: string) => verified.get(token)?.userId

    /**
     * The user an access token names, verified, while its session lives (admission asks `knownUser`
     * first, so this is a token's first use here, or its first since an eviction); refusals carry the
     * reason for the WWW-Authenticate header. A token without a session (`sid`: issued before sessions
     * were checked) is refused, and its refresh token gives one that has it.
     */
    const authenticate = traced("Accounts.authenticate")(function* (token: string) {
      const { payload, current } = yield* tokens.verify(token, "access").pipe(
        Effect.mapError(
          (failure) =>
            new Unauthenticated({
              message: failure === "expired" ? "Access token expired: refresh it" : "Invalid access token"
            })
        )
      )
      const sessionId = payload["sid"]
      if (typeof sessionId !== "string" || payload.sub === undefined) {
        return yield* new Unauthenticated({ message: "Access token without a session: refresh it" })
      }
      const since = verified.epoch()
      const [session] = yield* sql<{ user_id: UserId }>`
        SELECT s.user_id FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = ${sessionId}::uuid AND s.user_id = ${payload.sub}::uuid AND s.ended_at IS NULL
          AND u.password_hash IS NOT NULL`
      if (session === undefined) return yield* new Unauthenticated({ message: SESSION_ENDED })
      if (current && payload.exp !== undefined) {
        verified.put(token, { userId: session.user_id, sessionId }, payload.exp, since)
      }
      return session.user_id
    })

    /**
     * Ends every session of the user on every process: its refresh tokens and its access tokens, at
     * once (for the account's deletion). Called outside any transaction: inside one, its NOTIFY would
     * leave only at that one's commit, after the wait for the other processes.
     */
    const endSessions = traced("Accounts.endSessions")(function* (userId: UserId) {
      yield* cache.userSessionsEnd(endSessionsOf(userId), () => userId)
    })

    const me = traced("Accounts.me")(function* (userId: UserId) {
      const [row] = yield* sql<Omit<UserProfile, "stats"> & UserProfile["stats"]>`
        SELECT u.id, u.email, u.email_verified_at IS NOT NULL AS email_verified, u.nome, u.telefone, u.cpf,
               u.avatar_url, u.referral_code, u.created_at, u.updated_at,
               (SELECT coalesce(sum(c.balance), 0)::bigint FROM user_clients c WHERE c.user_id = u.id) AS total_points,
               (SELECT coalesce(sum(i.pending_points), 0)::float8 FROM user_clients c
                JOIN nfce_invoices i ON i.empresa_id = c.empresa_id AND i.client_id = c.id AND i.status = 'pending'
                WHERE c.user_id = u.id) AS pending_points,
               (SELECT count(*)::int FROM user_clients c WHERE c.user_id = u.id) AS total_stores,
               (SELECT count(*)::int FROM users r
                WHERE r.pending_referral_code = u.referral_code AND r.password_hash IS NOT NULL) AS total_referrals,
               (SELECT count(*)::int FROM coupons k JOIN user_clients c ON c.empresa_id = k.empresa_id
                  AND c.id = k.client_id
                WHERE c.user_id = u.id AND k.status = 'used') AS total_rewards_redeemed
        FROM users u WHERE u.id = ${userId}`
      const { total_points, pending_points, total_stores, total_referrals, total_rewards_redeemed, ...profile } = row!
      return {
        ...profile,
        stats: { total_points, pending_points, total_stores, total_referrals, total_rewards_redeemed }
      }
    })

    const updateProfile = traced("Accounts.updateProfile")(function* (userId: UserId, input: UpdateProfileInput) {
      const changes = {
        ...(input.nome !== undefined && { nome: input.nome }),
        ...(input.telefone !== undefined && { telefone: input.telefone }),
        ...(input.cpf !== undefined && { cpf: input.cpf })
      }
      const [user] = yield* sql<{ id: UserId; nome: string; email: string; telefone: string | null }>`
        UPDATE users SET ${sql.update({ ...changes, updated_at: new Date() })}
        WHERE id = ${userId} RETURNING id, nome, email, telefone`
      return { message: "Profile updated", user: user! }
    })

    /** Consumes a link token once: its row is marked used by the same statement that checks it. */
    const consume = (token: string, purpose: LinkPurpose) =>
      Effect.gen(function* () {
        const { payload } = yield* tokens.verify(token, "link").pipe(Effect.mapError(linkNotFound))
        if (payload["purpose"] !== purpose || typeof payload.jti !== "string") return yield* linkNotFound()
        const [row] = yield* sql<{ user_id: UserId; email: string }>`
          UPDATE account_tokens SET used_at = now()
          WHERE id = ${payload.jti}::uuid AND purpose = ${purpose} AND used_at IS NULL AND expires_at > now()
          RETURNING user_id, email`
        if (row === undefined) return yield* linkNotFound()
        return row
      })

    /** Marks the email verified when the link was sent to the address the account still has. */
    const markVerified = (userId: UserId, email: string) =>
      sql`UPDATE users SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
          WHERE id = ${userId} AND lower(email) = lower(${email})`

    /**
     * The proof of the address: the stores' balances show from now on, and only to sessions opened
     * after it, so every earlier session ends (whoever registered the address, the proof was not
     * theirs to give: docs/decisions.md "Access tokens die with their session").
     */
    const verifyEmail = traced("Accounts.verifyEmail")(function* (token: string) {
      yield* cache.userSessionsEnd(
        inTransaction(sql)(
          Effect.gen(function* () {
            const { user_id, email } = yield* consume(token, "verify_email")
            yield* markVerified(user_id, email)
            yield* endSessionsOf(user_id)
            return user_id
          })
        ),
        (userId) => userId
      )
      return { message: "Email verified; log in again to see your points at the stores" }
    })

    /** Always the same answer, whether or not the email has an account (no enumeration). */
    const requestPasswordReset = traced("Accounts.requestPasswordReset")(function* (email: string) {
      yield* inTransaction(sql)(
        Effect.gen(function* () {
          const [user] = yield* sql<{ id: UserId; email: string }>`
            SELECT id, email FROM users WHERE lower(email) = lower(${email}) AND password_hash IS NOT NULL`
          if (user !== undefined) yield* sendLink(user.id, user.email, "reset_password")
        })
      )
      return { message: "If an account has this email, a link to reset its password was sent to it" }
    })

    /**
     * Sets a new password and ends every session. The link proves the mailbox is the account's, so
     * the email counts as verified (its other links are used up), and the account's login lockout is
     * lifted. A password the policy refuses leaves the link unused.
     */
    const resetPassword = traced("Accounts.resetPassword")(function* (token: string, password: string) {
      const passwordHash = yield* passwords.hash(password)
      const { email: address } = yield* cache.userSessionsEnd(
        inTransaction(sql)(
          Effect.gen(function* () {
            const { user_id, email } = yield* consume(token, "reset_password")
            const [owner] = yield* sql<{ nome: string }>`SELECT nome FROM users WHERE id = ${user_id}`
            yield* allowedPassword(password, { email, nome: owner!.nome })
            yield* sql`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${user_id}`
            yield* markVerified(user_id, email)
            yield* endSessionsOf(user_id)
            yield* sql`UPDATE account_tokens SET used_at = now() WHERE user_id = ${user_id} AND used_at IS NULL`
            return { user_id, email }
          })
        ),
        ({ user_id }) => user_id
      )
      yield* throttle.succeeded(throttle.subjectsOf(address, undefined))
      return { message: "Password changed; every session was logged out" }
    })

    return {
      ...sqlErrorsAsDefects({
        register,
        login,
        refresh,
        logout,
        authenticate,
        me,
        updateProfile,
        verifyEmail,
        requestPasswordReset,
        resetPassword,
        endSessions
      }),
      knownUser
    }
  })
}) {}
