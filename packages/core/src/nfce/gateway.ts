import { Context, Effect, Layer } from "effect"
import type { DecodedQr, InvoiceOutcome } from "./contracts.js"

/** How one invoice's consultation is obtained: the state's page, or fixtures in tests. */
export type InvoiceFetcher = (invoice: DecodedQr) => Effect.Effect<InvoiceOutcome>

/**
 * The port the NFC-e task asks for an invoice's total, item count and issue date. An offline QR
 * already carries its total and day, so it never reaches the fetcher: no state page is needed, and
 * none could tell more before the merchant transmits the note.
 */
export class SefazGateway extends Context.Tag("core/SefazGateway")<
  SefazGateway,
  { readonly fetchInvoice: InvoiceFetcher }
>() {
  static readonly layer = (fetcher: InvoiceFetcher) =>
    Layer.succeed(SefazGateway, { fetchInvoice: (invoice) => offlineFirst(invoice) ?? fetcher(invoice) })

  /** For tests: the outcome each access key gets; an unknown key is `not_found`, as a state would say. */
  static readonly fixture = (outcomes: Readonly<Record<string, InvoiceOutcome>>) =>
    SefazGateway.layer((invoice) =>
      Effect.succeed(
        outcomes[invoice.access_key] ?? { status: "not_found", detail: `No fixture invoice ${invoice.access_key}` }
      )
    )
}

const offlineFirst = (invoice: DecodedQr): Effect.Effect<InvoiceOutcome> | undefined =>
  invoice.offline === null
    ? undefined
    : Effect.succeed({
        status: "ok",
        total_cents: invoice.offline.total_cents,
        items_count: null,
        issued_at: invoice.offline.issue_date
      })
