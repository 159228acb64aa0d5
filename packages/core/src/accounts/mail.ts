import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { resetPasswordMessage, verifyEmailMessage } from "../email/render.js"
import { Mailer } from "../email/transport.js"
import { JobFailed, type ClaimedJob, type JobDone } from "../jobs/contracts.js"
import type { JobHandler } from "../jobs/worker.js"
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
  readonly nome: string
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

    const deliver = (publicUrl: string) => (job: ClaimedJob) =>
      Effect.gen(function* () {
        const [row] = yield* sql<TokenRow>`
          SELECT t.id, t.user_id, t.purpose, t.email, u.nome, t.expires_at,
                 t.used_at IS NULL AND t.expires_at > now() AS live
          FROM account_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.id = ${String(job.payload["token_id"])}::uuid`
        if (row === undefined || !row.live) return { outcome: "link used or expired" } satisfies JobDone
        const token = yield* tokens.sign("link", row.user_id, new Date(row.expires_at), {
          purpose: row.purpose,
          jti: row.id
        })
        const link = {
          nome: row.nome,
          url: `${publicUrl}${PAGES[row.purpose]}?token=${token}`,
          token,
          validHours: LINK_LIFETIMES[row.purpose] / 3600
        }
        const rendered = row.purpose === "verify_email" ? verifyEmailMessage(link) : resetPasswordMessage(link)
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
