import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Mailer, resetPasswordMessage, verifyEmailMessage, type AccountLink } from "../email/service.js"
import { JobFailed, type ClaimedJob, type JobDone } from "../jobs/contracts.js"
import type { JobHandler } from "../jobs/contracts.js"
import type { UserId } from "../ids.js"
import { AccessTokens } from "./tokens.js"
import { span } from "../tracing.js"

/** The queue account emails travel on (apart from the empresas' outbox: a user belongs to no empresa). */
export const ACCOUNT_MAIL_QUEUE = "account_email"

export type LinkPurpose = "verify_email" | "reset_password"

/** How long a link works, in seconds: a reset is short-lived, a verification may wait for the user. */
export const LINK_LIFETIMES: Record<LinkPurpose, number> = { verify_email: 48 * 3600, reset_password: 3600 }

/**
 * Account emails (verification and reset together) one account's address gets at most within
 * `seconds`, whoever asks and from wherever (docs/decisions.md "Account emails per address"). The
 * window is a reset link's lifetime: while the limit holds mail back, the links it counted still work.
 */
export const ACCOUNT_MAIL_LIMIT = { mails: 3, seconds: LINK_LIFETIMES.reset_password } as const

/** Where each link leads: the consumer app's page, which posts the token to the API. */
const PAGES: Record<LinkPurpose, string> = {
  verify_email: "/account/verify-email",
  reset_password: "/account/reset-password"
}

interface TokenRow {
  readonly id: string
  readonly user_id: UserId
  readonly purpose: LinkPurpose
  readonly email: string
  /**
   * Null unless the link goes to the account's own verified address: the name is whatever the
   * registrant typed (docs/decisions.md, "Email text: control characters folded, no name to an
   * unproven address").
   */
  readonly nome: string | null
  readonly expires_at: Date
  readonly live: boolean
}

/**
 * Sends the account emails (verification, password reset), queued by Accounts in the transaction
 * that made the link's row. The link's JWT is signed at send time from that row (its `jti`), so no
 * usable token is kept in the database; using it marks the row used, once.
 */
export class AccountMail extends Effect.Service<AccountMail>()("core/AccountMail", {
  dependencies: [AccessTokens.Default, Mailer.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tokens = yield* AccessTokens
    const mailer = yield* Mailer

    const linkOf = (publicUrl: string, row: TokenRow, id: string, purpose: LinkPurpose) =>
      Effect.map(
        tokens.sign("link", row.user_id, new Date(row.expires_at), { purpose, jti: id }),
        (token): AccountLink => ({
          nome: row.nome,
          url: `${publicUrl}${PAGES[purpose]}?token=${token}`,
          token,
          validHours: LINK_LIFETIMES[row.purpose] / 3600
        })
      )

    /**
     * The verification message: the stores that already keep points for the address, and a claim
     * link for its owner should someone else have registered it: a password reset that lasts as long
     * as the verification (docs/decisions.md "Access tokens die with their session").
     */
    const verification = (publicUrl: string, row: TokenRow, link: AccountLink) =>
      Effect.gen(function* () {
        const [claim] = yield* sql<{ id: string; stores: string[] }>`
          WITH claim AS (
            INSERT INTO account_tokens (user_id, purpose, email, expires_at, sent_with)
            VALUES (${row.user_id}, 'reset_password', ${row.email}, ${row.expires_at}, ${row.id})
            ON CONFLICT (sent_with) DO UPDATE SET sent_with = EXCLUDED.sent_with
            RETURNING id
          )
          SELECT claim.id, array(SELECT e.name FROM clients c JOIN empresas e ON e.id = c.empresa_id
                                 WHERE c.user_id = ${row.user_id} ORDER BY e.name) AS stores
          FROM claim`
        return verifyEmailMessage(link, yield* linkOf(publicUrl, row, claim!.id, "reset_password"), claim!.stores)
      })

    const deliver = (publicUrl: string) => (job: ClaimedJob) =>
      Effect.gen(function* () {
        const [row] = yield* sql<TokenRow>`
          SELECT t.id, t.user_id, t.purpose, t.email,
                 CASE WHEN u.email_verified_at IS NOT NULL AND u.email = t.email THEN u.nome END AS nome,
                 t.expires_at,
                 t.used_at IS NULL AND t.expires_at > now() AS live
          FROM account_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.id = ${String(job.payload["token_id"])}::uuid`
        if (row === undefined || !row.live) return { outcome: "link used or expired" } satisfies JobDone
        const link = yield* linkOf(publicUrl, row, row.id, row.purpose)
        const rendered =
          row.purpose === "verify_email" ? yield* verification(publicUrl, row, link) : resetPasswordMessage(link)
        yield* mailer.send({
          to: row.email,
          ...rendered,
          messageId: `<${row.id}@${new URL(publicUrl).hostname}>`,
          headers: { "Auto-Submitted": "auto-generated", "X-Fidelis-Message-Kind": row.purpose }
        })
        return {} satisfies JobDone
      }).pipe(
        Effect.catchTag("SqlError", (error) => Effect.fail(new JobFailed({ message: error.message }))),
        span("AccountMail.deliver")
      )

    return {
      /** The `account_email` queue's handler, with links under `publicUrl`. */
      handler: (publicUrl: string): JobHandler => ({ queue: ACCOUNT_MAIL_QUEUE, run: deliver(publicUrl) })
    }
  })
}) {}
