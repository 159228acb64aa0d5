import { z } from "zod"
import { PageQuery, paginated, Timestamp } from "../contracts.js"
import { EmailMessageId, EmpresaId } from "../ids.js"

/** What a message is: each kind has its renderer, fed at send time from the rows its payload names. */
export const EmailKind = z
  .enum(["low_score_alert", "test", "referral_invite"])
  .describe(
    "low_score_alert: a survey response with a low score; test: a message that checks the set-up; " +
      "referral_invite: a promoter's referral link, to the client's own verified address"
  )
export type EmailKind = z.infer<typeof EmailKind>

/** What the outbox holds per kind until the message is rendered. */
export interface EmailPayloads {
  readonly low_score_alert: { readonly response_id: string }
  readonly test: Record<string, never>
  readonly referral_invite: { readonly user_id: string }
}

/** A message to queue, in the caller's transaction (`Outbox.enqueue`). */
export type NewEmail = {
  [K in EmailKind]: {
    readonly empresaId: EmpresaId
    readonly kind: K
    readonly to: string
    readonly payload: EmailPayloads[K]
    /** Seconds before it is rendered and sent; default 0. */
    readonly delaySeconds?: number | undefined
  }
}[EmailKind]

const Token = z.string().min(1).max(2048).describe("The signed token from the email's link")

/** The open pixel and the unsubscribe routes: the token and nothing else. */
export const TokenInput = z.strictObject({ token: Token })

/**
 * The click route takes the token only; any other parameter (an attempt to name another target)
 * makes the link unknown, a 404, rather than a 422, so the route never explains how to redirect.
 */
export const ClickInput = z.looseObject({ token: Token })

/** RFC 8058 one-click unsubscribe: mail providers POST `List-Unsubscribe=One-Click`, form-encoded. */
export const UnsubscribeInput = z
  .strictObject({
    token: Token,
    "List-Unsubscribe": z.literal("One-Click").optional().describe("Sent by mail providers' one-click unsubscribe")
  })
  .meta({
    examples: [{ token: "eyJhbGciOiJIUzI1NiJ9.eyJtIjoiOWY4ZSJ9.c2lnbmF0dXJl", "List-Unsubscribe": "One-Click" }]
  })

export const EmailStatus = z
  .enum(["queued", "sent", "suppressed", "dead"])
  .describe(
    "queued: waiting for its first or next try; sent: the transport accepted it; " +
      "suppressed: not sent, the address unsubscribed; dead: every try failed"
  )

export const OutboxMessage = z
  .object({
    id: EmailMessageId,
    empresa_id: EmpresaId,
    kind: EmailKind,
    to: z.string(),
    status: EmailStatus,
    subject: z.string().nullable().describe("As sent; null until it is"),
    attempts: z.number().int().describe("Tries so far"),
    max_attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable().describe("When a queued message is tried next"),
    last_error: z.string().nullable(),
    sent_at: Timestamp.nullable(),
    created_at: Timestamp,
    opens: z.number().int().describe("Times the open pixel was fetched"),
    clicks: z.number().int().describe("Tracked links followed"),
    unsubscribed: z.boolean().describe("Whether the recipient unsubscribed through this message")
  })
  .meta({
    id: "EmailMessage",
    examples: [
      {
        id: "5f0c2a71-43b8-4d55-9a1e-6d2f0b9c8e11",
        empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
        kind: "low_score_alert",
        to: "gerente@padariasol.com.br",
        status: "sent",
        subject: 'Nota baixa em "Pesquisa de satisfação": CSAT 2/5, NPS 4/10',
        attempts: 1,
        max_attempts: 8,
        next_attempt_at: null,
        last_error: null,
        sent_at: "2026-11-20T14:07:03.000Z",
        created_at: "2026-11-20T14:05:01.000Z",
        opens: 1,
        clicks: 0,
        unsubscribed: false
      }
    ]
  })
export type OutboxMessage = z.infer<typeof OutboxMessage>

export const OutboxPage = paginated(OutboxMessage)

export const MessageRef = z.strictObject({ empresa_id: EmpresaId, message_id: EmailMessageId })

export const ListMessagesInput = z.strictObject({
  empresa_id: EmpresaId,
  ...PageQuery,
  status: EmailStatus.optional()
})
export type ListMessagesInput = z.infer<typeof ListMessagesInput>

export const TestEmailInput = z
  .strictObject({
    empresa_id: EmpresaId,
    to: z.email().max(254).optional().describe("Where to send it; default the empresa's alert_email setting")
  })
  .meta({ examples: [{ empresa_id: "2b3c4d5e-6f70-4819-a2b3-c4d5e6f7a8b9", to: "gerencia@paodourado.com.br" }] })

export type TestEmailInput = z.infer<typeof TestEmailInput>
