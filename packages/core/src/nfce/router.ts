import { z } from "zod"
import { adminProcedure, companyProcedure, refuses, router, runEffect, userProcedure } from "../trpc.js"
import {
  CscRef,
  DecodeQrInput,
  DecodeQrResult,
  InspectInput,
  InspectResult,
  ListInvoicesInput,
  NfceInvoicePage,
  NfceProgress,
  NfceTaskRef,
  SetCertificateInput,
  SetCscInput,
  StoreCertificate,
  StoreCnpj,
  StoreCnpjInput,
  StoreCnpjRef,
  StoreCnpjs,
  StoreCsc,
  StoreProofs
} from "./contracts.js"
import { Nfce } from "./service.js"
import { NfceProofs } from "./store-proofs.js"

const tags = ["NFC-e"]

/** Support tooling on the internal API. */
export const nfceRouter = router({
  inspect: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/nfce/inspect",
        tags,
        summary: "Inspect an NFC-e QR code",
        description:
          "Support tooling: decodes what a receipt's QR code holds and says whether a scan would be accepted, " +
          "without fetching the state's page or crediting anything. `valid: true` with the access key, its " +
          "fields, the state, the layout (v2/v3, online/offline), tpAmb and, for an offline QR, its total and " +
          "day; or `valid: false` with the refusal's `reason` and a message for people (not a URL or not a " +
          "receipt, a legacy v1 code, a key of the wrong format or check digit, a model other than 65, an " +
          "unknown state, a host that is not an official one of the key's state, a layout that does not fit the " +
          "emission type, a test invoice outside a sandbox, an issue month in the future or past `max_age_days`)."
      }
    })
    .input(InspectInput)
    .output(InspectResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Nfce.inspect(input)))
})

/** The end user's receipt scans. */
export const userNfceRouter = router({
  decodeQr: userProcedure
    .concat(refuses("NOT_FOUND", "NFCE_ALREADY_SCANNED", "NFCE_CLAIMED_BY_OTHER"))
    .meta({
      successStatus: 202,
      openapi: {
        method: "POST",
        path: "/nfce/decode-qr",
        tags,
        summary: "Scan a receipt (NFC-e) for points",
        description:
          "Checks the QR code locally (a 422 at `qr_code` whose `type` names the reason: not a receipt, a bad " +
          "key or check digit, a model other than 65, a host that is not its state's, a test invoice, an issue " +
          "date in the future or past the store's age limit; for an offline QR, a total above the store's " +
          "`nfce_max_total` (`total_above_limit`) or worth more points than one credit holds " +
          "(`total_out_of_range`)), finds the store by the CNPJ in the access key (404 when no store has it) and " +
          "starts a task that confirms the total and credits floor(total × points_per_real). An online receipt " +
          "is confirmed by the state's page. An offline (contingency) receipt's total is only the store's word: " +
          "its points stay `pending` (shown apart, never spendable) until the state's page shows the invoice, " +
          "checked again with backoff until its deadline, or its own v2 hash or v3 signature checks out against " +
          "the CSC or certificate the store registered; unconfirmed by the deadline, they are reversed. Each " +
          "receipt credits once: while its task is processing, pending or completed, a second scan by the same " +
          "user is `NFCE_ALREADY_SCANNED` with `detail.task_id`, by anyone else `NFCE_CLAIMED_BY_OTHER`; a failed " +
          "or reversed task credited nothing, so scanning again reopens it. A user may scan the store's " +
          "`nfce_receipts_per_day` receipts in 24 hours; past that, 429 with Retry-After. The user's email must be " +
          "verified (403); a first receipt at a store makes the user its client."
      }
    })
    .input(DecodeQrInput)
    .output(DecodeQrResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Nfce.scan(ctx.userId, input.qr_code))),

  progress: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/progress/{task_id}",
        tags,
        summary: "A receipt scan's progress",
        description:
          "`processing` until the state's page confirms the total (retried with backoff while it is " +
          "unavailable), then `completed` with the points credited or `failed` with the reason. An offline " +
          "receipt not confirmed at once is `pending` with its `pending_points` and `confirm_by`, then " +
          "`completed` or `reversed` (with the reason). Another user's task is a 404."
      }
    })
    .input(NfceTaskRef)
    .output(NfceProgress)
    .query(({ ctx, input }) => runEffect(ctx, Nfce.progress(ctx.userId, input.task_id)))
})

/** The company's side: the CNPJs that select its store, and the receipts scanned there. */
export const companyNfceRouter = router({
  invoices: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/invoices",
        tags,
        summary: "List scanned receipts",
        description:
          "The empresa's NFC-e scans, newest first, with their task status, total, items and points; " +
          "`status` and the scan window `from` (inclusive) / `to` (exclusive) filter them."
      }
    })
    .input(ListInvoicesInput)
    .output(NfceInvoicePage)
    .query(({ ctx, input }) => runEffect(ctx, Nfce.invoices(ctx.empresaId, input))),

  cnpjs: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/cnpjs",
        tags,
        summary: "List the store's CNPJs",
        description: "The CNPJs whose receipts credit at this empresa, besides the CNPJ on its profile."
      }
    })
    .input(z.object({}))
    .output(StoreCnpjs)
    .query(({ ctx }) => runEffect(ctx, Nfce.cnpjs(ctx.empresaId))),

  addCnpj: companyProcedure
    .concat(refuses("CNPJ_TAKEN"))
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/nfce/cnpjs",
        tags,
        summary: "Register a CNPJ of the store",
        description:
          "Receipts whose access key names this CNPJ then credit at this empresa. Registering it again " +
          "changes nothing; another empresa's CNPJ is refused (CNPJ_TAKEN)."
      }
    })
    .input(StoreCnpjInput)
    .output(StoreCnpj)
    .mutation(({ ctx, input }) => runEffect(ctx, Nfce.addCnpj(ctx.empresaId, input.cnpj))),

  removeCnpj: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/nfce/cnpjs/{cnpj}",
        tags,
        summary: "Remove a CNPJ of the store",
        description: "Receipts of this CNPJ no longer credit here; the ones already scanned stay."
      }
    })
    .input(StoreCnpjInput)
    .output(StoreCnpj)
    .mutation(({ ctx, input }) => runEffect(ctx, Nfce.removeCnpj(ctx.empresaId, input.cnpj))),

  proofs: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/cnpjs/{cnpj}/proofs",
        tags,
        summary: "What confirms a CNPJ's offline receipts",
        description:
          "The CSCs (id and a masked hint; the token is never returned) and the certificate registered for one of " +
          "the store's CNPJs. An offline (contingency) receipt whose v2 hash matches a CSC, or whose v3 " +
          "signature verifies with the certificate, is credited at once instead of waiting for the state's page."
      }
    })
    .input(StoreCnpjRef)
    .output(StoreProofs)
    .query(({ ctx, input }) => runEffect(ctx, NfceProofs.proofs(ctx.empresaId, input.cnpj))),

  setCsc: companyProcedure
    .concat(refuses("NOT_FOUND", "SECRET_KEY_NOT_SET"))
    .meta({
      openapi: {
        method: "PUT",
        path: "/nfce/cnpjs/{cnpj}/cscs/{csc_id}",
        tags,
        summary: "Register a CSC of a store CNPJ",
        description:
          "The CSC (Código de Segurança do Contribuinte) the state issued for this CNPJ, under its id (cIdToken): " +
          "v2 offline receipts whose hash it reproduces are credited at once. The token is stored encrypted and " +
          "never returned; registering the same id again replaces it. 404 for a CNPJ that is not the store's; " +
          "SECRET_KEY_NOT_SET when the server has no FIDELIS_SECRET_KEY to encrypt it with."
      }
    })
    .input(SetCscInput)
    .output(StoreCsc)
    .mutation(({ ctx, input }) => runEffect(ctx, NfceProofs.setCsc(ctx.empresaId, input))),

  removeCsc: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/nfce/cnpjs/{cnpj}/cscs/{csc_id}",
        tags,
        summary: "Remove a CSC of a store CNPJ",
        description: "Its receipts then wait for the state's page, as any other offline receipt."
      }
    })
    .input(CscRef)
    .output(StoreCsc)
    .mutation(({ ctx, input }) => runEffect(ctx, NfceProofs.removeCsc(ctx.empresaId, input.cnpj, input.csc_id))),

  setCertificate: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "PUT",
        path: "/nfce/cnpjs/{cnpj}/certificate",
        tags,
        summary: "Register the certificate of a store CNPJ",
        description:
          "The public X.509 certificate (PEM, the first one in the text) whose RSA key signs this CNPJ's v3 " +
          "offline QR codes: receipts whose signature it verifies, issued while it is valid, are credited at once. " +
          "It must parse, hold an RSA key and not be expired (422 at `certificate_pem` otherwise); a private key " +
          "is refused. The answer names its subject, issuer and validity. Registering again replaces it."
      }
    })
    .input(SetCertificateInput)
    .output(StoreCertificate)
    .mutation(({ ctx, input }) => runEffect(ctx, NfceProofs.setCertificate(ctx.empresaId, input))),

  removeCertificate: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/nfce/cnpjs/{cnpj}/certificate",
        tags,
        summary: "Remove the certificate of a store CNPJ",
        description: "Its receipts then wait for the state's page, as any other offline receipt."
      }
    })
    .input(StoreCnpjRef)
    .output(StoreCertificate)
    .mutation(({ ctx, input }) => runEffect(ctx, NfceProofs.removeCertificate(ctx.empresaId, input.cnpj)))
})
