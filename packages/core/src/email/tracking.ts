import { SqlClient } from "@effect/sql"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { databaseNow } from "../clock.js"
import { Config } from "../config.js"
import { NotFound } from "../errors.js"
import type { EmailMessageId, EmpresaId } from "../ids.js"
import { expiredLinkPage, unsubscribePage } from "./render.js"
import { EmailTokens, LINK_LIFETIME_DAYS, type TokenKind } from "./tokens.js"
import { traced } from "../tracing.js"

/** A transparent 1x1 GIF, the open pixel. */
const PIXEL = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"

/** The tracking routes, under the public base path (docs/architecture.md, "Surveys and email"). */
const ROUTES = "/api/v1/public/email"

/** The message a link is signed for. */
export interface LinkedMessage {
  readonly empresa_id: EmpresaId
  readonly id: EmailMessageId
}

/** The page an unsubscribe link past its year answers, GET or POST. */
const expiredUnsubscribe = (empresaName: string) => ({
  html: expiredLinkPage({ empresaName, kind: "unsubscribe", lifetimeDays: LINK_LIFETIME_DAYS.unsubscribe }),
  expired: true as const
})

const notFound = () => new NotFound({ resource: "Link", id: "token" })

/**
 * The links a message carries and the routes they lead to (docs/decisions.md, "Email"): an open
 * pixel, tracked links and an unsubscribe link, each a signed token naming its message; an address
 * that unsubscribed is suppressed for that empresa.
 */
export class EmailTracking extends Effect.Service<EmailTracking>()("core/EmailTracking", {
  accessors: true,
  dependencies: [EmailTokens.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const tokens = yield* EmailTokens
    const now = sql.literal(databaseNow(config.clockOffsetSeconds))

    /** The signed links of one message, under the public base URL. */
    const linksOf = (publicUrl: string, message: LinkedMessage) => {
      const token = (kind: TokenKind, url?: string) =>
        tokens.sign({
          kind,
          messageId: message.id,
          empresaId: message.empresa_id,
          url,
          ownPage: url?.startsWith(`${publicUrl}/`)
        })
      return {
        base: publicUrl,
        common: Effect.all({
          pixel: Effect.map(token("open"), (t) => `${publicUrl}${ROUTES}/open/${t}.gif`),
          unsubscribe: Effect.map(token("unsubscribe"), (t) => `${publicUrl}${ROUTES}/unsubscribe/${t}`)
        }),
        tracked: (url: string) => Effect.map(token("click", url), (t) => `${publicUrl}${ROUTES}/click/${t}`)
      }
    }

    /**
     * The message a token names, if the token verifies, and whether its link still works: a link
     * lives `LINK_LIFETIME_DAYS` from the message's sending (its queueing, should the send not have
     * been recorded), judged by the database's clock. A token that does not verify, or names no
     * message, is a 404.
     */
    const linked = (token: string, kind: TokenKind) =>
      Effect.gen(function* () {
        const claims = yield* Effect.flatMap(
          tokens.verify(token, kind),
          Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
        )
        const [row] = yield* sql<{ to_address: string; empresa_name: string; live: boolean }>`
          SELECT m.to_address, e.name AS empresa_name,
                 coalesce(m.sent_at, m.created_at) + make_interval(days => ${LINK_LIFETIME_DAYS[kind]}) > ${now} AS live
          FROM email_messages m JOIN empresas e ON e.id = m.empresa_id
          WHERE m.empresa_id = ${claims.empresaId} AND m.id = ${claims.messageId}`
        if (row === undefined) return yield* notFound()
        return { claims, ...row }
      })

    /** Records an event of the message the token names. */
    const record = (claims: { empresaId: EmpresaId; messageId: EmailMessageId }, kind: TokenKind, url?: string) =>
      sql`
        INSERT INTO email_events (empresa_id, message_id, kind, url)
        VALUES (${claims.empresaId}, ${claims.messageId}, ${kind}, ${url ?? null})`

    /** The open pixel: counts an open of the message while its link lives; the GIF either way. */
    const open = traced("EmailTracking.open")(function* (token: string) {
      const { claims, live } = yield* linked(token, "open")
      if (live) yield* record(claims, "open")
      return { content_type: "image/gif", body_base64: PIXEL }
    })

    /**
     * A tracked link: counts the click and redirects to the URL signed in the token, the only
     * target there is. Another parameter (`?url=…`) makes the link unknown, as an altered token does.
     * Expired, it still leads to a page of this server (the survey page), uncounted, but no longer
     * outside (a WhatsApp link names the respondent's phone): a page says the link has expired.
     */
    const click = traced("EmailTracking.click")(function* (input: { token: string } & Record<string, unknown>) {
      if (Object.keys(input).some((name) => name !== "token")) return yield* notFound()
      const { claims, live, empresa_name } = yield* linked(input.token, "click")
      if (claims.url === undefined) return yield* notFound()
      if (live) yield* record(claims, "click", claims.url)
      if (live || claims.ownPage) return { location: claims.url }
      const page = expiredLinkPage({ empresaName: empresa_name, kind: "click", lifetimeDays: LINK_LIFETIME_DAYS.click })
      return { html: page, expired: true as const }
    })

    /**
     * The unsubscribe page: asks to confirm with a POST; a GET changes nothing (scanners prefetch
     * links). Expired, the page says how to unsubscribe otherwise.
     */
    const unsubscribePageOf = traced("EmailTracking.unsubscribePage")(function* (token: string) {
      const { claims, live, to_address, empresa_name } = yield* linked(token, "unsubscribe")
      if (!live) return expiredUnsubscribe(empresa_name)
      const [done] = yield* sql`
        SELECT 1 FROM email_suppressions
        WHERE empresa_id = ${claims.empresaId} AND address = ${to_address.toLowerCase()}`
      return {
        html: unsubscribePage({ empresaName: empresa_name, address: to_address, state: done ? "done" : "ask" })
      }
    })

    /**
     * Unsubscribes the message's recipient from the empresa's email (RFC 8058 one-click, or the
     * page's button): every later message to that address is suppressed. Idempotent. An expired
     * link changes nothing and answers the page that says how to unsubscribe otherwise.
     */
    const unsubscribe = traced("EmailTracking.unsubscribe")(function* (token: string) {
      const { claims, live, to_address, empresa_name } = yield* linked(token, "unsubscribe")
      if (!live) return expiredUnsubscribe(empresa_name)
      yield* inTransaction(sql)(
        Effect.gen(function* () {
          const added = yield* sql`
            INSERT INTO email_suppressions (empresa_id, address, message_id)
            VALUES (${claims.empresaId}, ${to_address.toLowerCase()}, ${claims.messageId})
            ON CONFLICT (empresa_id, address) DO NOTHING
            RETURNING address`
          if (added.length > 0) yield* record(claims, "unsubscribe")
        })
      )
      return { html: unsubscribePage({ empresaName: empresa_name, address: to_address, state: "done" }) }
    })

    return {
      ...sqlErrorsAsDefects({ open, click, unsubscribePage: unsubscribePageOf, unsubscribe }),
      linksOf
    }
  })
}) {}
