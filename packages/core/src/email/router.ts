import { FileBody, HtmlPage, RedirectOrPage } from "../contracts.js"
import { adminProcedure, ipLimitedProcedure, refuses, router, runEffect } from "../trpc.js"
import {
  ClickInput,
  ListMessagesInput,
  MessageRef,
  OutboxMessage,
  OutboxPage,
  TestEmailInput,
  TokenInput,
  UnsubscribeInput
} from "./contracts.js"
import { EmailTracking, Outbox } from "./service.js"
import { LINK_LIFETIME_DAYS } from "./tokens.js"

const tags = ["Email"]

const secretParams = ["token"]

const { open: openDays, click: clickDays, unsubscribe: unsubscribeDays } = LINK_LIFETIME_DAYS

const EXPIRED_UNSUBSCRIBE =
  `The link is past its lifetime (${unsubscribeDays} days from the message's sending): nothing changes, and ` +
  "the page says how to unsubscribe otherwise (a newer message's link, the mail program's unsubscribe button)."

/** The links inside emails: public, no key, counted per client IP; their token is kept out of the access log. */
const tracking = ipLimitedProcedure("email", (config) => config.email.rateLimitPerMinute).concat(refuses("NOT_FOUND"))

export const emailRouter = router({
  open: tracking
    .meta({
      response: { kind: "file", contentType: "image/gif" },
      secretParams,
      openapi: {
        method: "GET",
        path: "/email/open/{token}.gif",
        tags,
        summary: "Email open pixel",
        description:
          "The 1x1 transparent GIF every message carries: counts an open of the message the token names, for " +
          `${openDays} days from its sending (later, the GIF counts nothing). A token that does not verify ` +
          "(forged or altered) is a 404."
      }
    })
    .input(TokenInput)
    .output(FileBody)
    .query(({ ctx, input }) => runEffect(ctx, EmailTracking.open(input.token))),

  click: tracking
    .meta({
      response: {
        kind: "redirect",
        expired:
          "The link is past its lifetime and its target is not a page of this server: a page says it has expired."
      },
      secretParams,
      openapi: {
        method: "GET",
        path: "/email/click/{token}",
        tags,
        summary: "Follow a tracked email link",
        description:
          "Counts the click and answers 302 to the URL signed inside the token, the only place it redirects to (no " +
          "open redirect). A token that does not verify, or any other query parameter, is a 404. A link lives " +
          `${clickDays} days from its message's sending; later it counts nothing and still leads to a page of ` +
          "this server (the survey page), but no longer elsewhere: 410 with a page."
      }
    })
    .input(ClickInput)
    .output(RedirectOrPage)
    .query(({ ctx, input }) => runEffect(ctx, EmailTracking.click(input))),

  unsubscribePage: tracking
    .meta({
      response: { kind: "html", expired: EXPIRED_UNSUBSCRIBE },
      secretParams,
      openapi: {
        method: "GET",
        path: "/email/unsubscribe/{token}",
        tags,
        summary: "Unsubscribe page",
        description:
          "An HTML page asking to confirm, whose button POSTs to the same URL. A GET changes nothing, since link " +
          "scanners fetch every link. A token that does not verify is a 404; a link past its year, 410 with a page."
      }
    })
    .input(TokenInput)
    .output(HtmlPage)
    .query(({ ctx, input }) => runEffect(ctx, EmailTracking.unsubscribePage(input.token))),

  unsubscribe: tracking
    .meta({
      response: { kind: "html", expired: EXPIRED_UNSUBSCRIBE },
      secretParams,
      openapi: {
        method: "POST",
        path: "/email/unsubscribe/{token}",
        tags,
        summary: "Unsubscribe (one click)",
        description:
          "RFC 8058 one-click unsubscribe: the body `List-Unsubscribe=One-Click`, form-encoded (or as JSON). The " +
          "message's recipient gets no more email from the empresa: later messages to the address are suppressed. " +
          "Idempotent; answers 200 with a confirmation page. A token that does not verify is a 404; a link past its " +
          `lifetime (${unsubscribeDays} days from the message's sending) changes nothing: 410 with a page.`,
        contentTypes: ["application/x-www-form-urlencoded", "application/json"]
      }
    })
    .input(UnsubscribeInput)
    .output(HtmlPage)
    .mutation(({ ctx, input }) => runEffect(ctx, EmailTracking.unsubscribe(input.token)))
})

const adminTags = ["Email outbox"]

export const outboxRouter = router({
  test: adminProcedure
    .concat(refuses("NOT_FOUND", "ALERT_EMAIL_NOT_SET"))
    .meta({
      successStatus: 202,
      openapi: {
        method: "POST",
        path: "/empresas/{empresa_id}/emails/test",
        tags: adminTags,
        summary: "Send a test email",
        description:
          "Queues a test message to `to`, or to the empresa's `alert_email` setting, through the outbox and the " +
          "configured transport (SMTP, or .eml files under the data directory), with the same tracking and " +
          "unsubscribe links as an alert. 202 with the queued message; follow it with GET …/emails/{message_id}. " +
          "409 ALERT_EMAIL_NOT_SET when there is no address."
      }
    })
    .input(TestEmailInput)
    .output(OutboxMessage)
    .mutation(({ ctx, input }) => runEffect(ctx, Outbox.sendTest(input))),

  get: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/empresas/{empresa_id}/emails/{message_id}",
        tags: adminTags,
        summary: "Get an outbox message",
        description:
          "One message of the empresa's outbox: its status (queued, sent, suppressed, dead), tries, next try, last " +
          "error, and opens, clicks and unsubscribe."
      }
    })
    .input(MessageRef)
    .output(OutboxMessage)
    .query(({ ctx, input }) => runEffect(ctx, Outbox.get(input.empresa_id, input.message_id))),

  list: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/empresas/{empresa_id}/emails",
        tags: adminTags,
        summary: "List outbox messages",
        description: "The empresa's outbox, newest first, paginated; filter by `status` (e.g. dead)."
      }
    })
    .input(ListMessagesInput)
    .output(OutboxPage)
    .query(({ ctx, input }) => runEffect(ctx, Outbox.list(input.empresa_id, input)))
})
