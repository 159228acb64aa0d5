import { Context, Effect, Layer } from "effect"
import type { DecodedQr, InvoiceOutcome } from "./contracts.js"

/** How one invoice's consultation is obtained: the state's page, or fixtures in tests. */
export type InvoiceFetcher = (invoice: DecodedQr) => Effect.Effect<InvoiceOutcome>

/**
 * The port the NFC-e task asks for an invoice's total, item count and issue date. An offline QR's
 * own total is only the merchant's word (anyone can write one), so it asks the state's page too:
 * the page confirms an offline receipt once the merchant transmitted the note.
 */
export class SefazGateway extends Context.Tag("core/SefazGateway")<
  SefazGateway,
  { readonly fetchInvoice: InvoiceFetcher }
>() {
  static readonly layer = (fetcher: InvoiceFetcher) => Layer.succeed(SefazGateway, { fetchInvoice: fetcher })

  /** For tests: the outcome each access key gets; an unknown key is `not_found`, as a state would say. */
  static readonly fixture = (outcomes: Readonly<Record<string, InvoiceOutcome>>) =>
    SefazGateway.layer((invoice) =>
      Effect.succeed(
        outcomes[invoice.access_key] ?? { status: "not_found", detail: `No fixture invoice ${invoice.access_key}` }
      )
    )
}
