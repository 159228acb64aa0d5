import { z } from "zod"
import { CnpjClaims } from "./claims.js"
import { adminProcedure, companyProcedure, refuses, router, runEffect, userProcedure } from "../trpc.js"
import {
  CnpjClaim,
  CnpjClaimPage,
  CnpjClaimRef,
  CscRef,
  DecodeQrInput,
  DecodeQrResult,
  InspectInput,
  InspectResult,
  ListCnpjClaimsInput,
  ListInvoicesInput,
  NfceInvoicePage,
  NfceProgress,
  NfceTaskRef,
  ProveCnpjClaimInput,
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
    .mutation(({ ctx, input }) => runEffect(ctx, Nfce.inspect(input))),

  cnpjClaims: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/cnpj-claims",
        tags,
        summary: "List CNPJ claims",
        description:
          "Every CNPJ an empresa holds (on its profile or registered for NFC-e), oldest first, with whose it is " +
          "and whether the claim is proven. `proven=false` lists the registrations waiting for an admin to check " +
          "them: their receipts are refused until then."
      }
    })
    .input(ListCnpjClaimsInput)
    .output(CnpjClaimPage)
    .query(({ ctx, input }) => runEffect(ctx, CnpjClaims.list(input))),

  cnpjClaim: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/nfce/cnpj-claims/{cnpj}",
        tags,
        summary: "Get a CNPJ's claim",
        description: "Which empresa holds the CNPJ, how (profile, registration) and whether its claim is proven."
      }
    })
    .input(CnpjClaimRef)
    .output(CnpjClaim)
    .query(({ ctx, input }) => runEffect(ctx, CnpjClaims.get(input.cnpj))),

  proveCnpjClaim: adminProcedure
    .concat(refuses("NOT_FOUND", "CNPJ_TAKEN"))
    .meta({
      openapi: {
        method: "PUT",
        path: "/nfce/cnpj-claims/{cnpj}/proof",
        tags,
        summary: "Prove a CNPJ's claim",
        description:
          "After checking that the CNPJ is the store's (its CNPJ card, its contract, its e-CNPJ certificate), an " +
          "admin proves the claim of the empresa named: the CNPJ's receipts then credit there. Proving a proven " +
          "claim changes nothing; a claim another empresa holds is refused (CNPJ_TAKEN). A store's CSC or " +
          "certificate proves no claim: the store chooses them, and can write receipts they verify."
      }
    })
    .input(ProveCnpjClaimInput)
    .output(CnpjClaim)
    .mutation(({ ctx, input }) => runEffect(ctx, CnpjClaims.prove(input))),

  releaseCnpjClaim: adminProcedure
    .concat(refuses("NOT_FOUND", "CNPJ_ON_PROFILE"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/nfce/cnpj-claims/{cnpj}",
        tags,
        summary: "Release a registered CNPJ",
        description:
          "Removes an empresa's registration of the CNPJ and the proofs it kept for it (for a store that " +
          "registered a CNPJ not its own), so the CNPJ's owner can register it. Receipts already scanned stay. " +
          "A profile CNPJ is refused (CNPJ_ON_PROFILE): change that empresa's cnpj instead. Answers the claim " +
          "as it was."
      }
    })
    .input(CnpjClaimRef)
    .output(CnpjClaim)
    .mutation(({ ctx, input }) => runEffect(ctx, CnpjClaims.release(input.cnpj)))
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
          "(`total_out_of_range`)), finds the store by the CNPJ in the access key (404 when no store has it; 422 " +
          "`cnpj_unproven` while the store that registered it has not proven it is its own: nothing is recorded, " +
          "so the receipt can be scanned again once it has) and starts a task that confirms the total and " +
          "credits floor(total × points_per_real). An online receipt is confirmed by the state's page. An " +
          "offline (contingency) receipt's total is only the store's word: its points stay `pending` (shown " +
          "apart, never spendable) until the state's page shows the invoice, " +
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
        description:
          "The CNPJs registered for this empresa, besides the CNPJ on its profile, each with whether its claim " +
          "is proven: only a proven CNPJ's receipts credit here."
      }
    })
    .input(z.object({}))
    .output(StoreCnpjs)
    .query(({ ctx }) => runEffect(ctx, CnpjClaims.registrations(ctx.empresaId))),

  addCnpj: companyProcedure
    .concat(refuses("CNPJ_TAKEN"))
    .meta({
      successStatus: 201,
      location: "/nfce/cnpjs/{cnpj}",
      openapi: {
        method: "POST",
        path: "/nfce/cnpjs",
        tags,
        summary: "Register a CNPJ of the store",
        description:
          "Claims the CNPJ for this empresa: a CNPJ belongs to one empresa, so one another empresa holds (registered " +
          "or on its profile) is refused (CNPJ_TAKEN, which does not say whose). The claim starts unproven: its " +
          "receipts are refused until Fidelis support (an admin) checks that the CNPJ is the store's and proves it " +
          "(`proven`, `proven_by` say so); the profile CNPJ is proven already. Registering it again changes nothing."
      }
    })
    .input(StoreCnpjInput)
    .output(StoreCnpj)
    .mutation(({ ctx, input }) => runEffect(ctx, CnpjClaims.register(ctx.empresaId, input.cnpj))),

  removeCnpj: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/nfce/cnpjs/{cnpj}",
        tags,
        summary: "Remove a CNPJ of the store",
        description:
          "Receipts of this CNPJ no longer credit here, and the CSCs and certificate registered for it are " +
          "forgotten; the receipts already scanned stay. The CNPJ is free again unless it is the profile's."
      }
    })
    .input(StoreCnpjInput)
    .output(StoreCnpj)
    .mutation(({ ctx, input }) => runEffect(ctx, CnpjClaims.unregister(ctx.empresaId, input.cnpj))),

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
          "the store's CNPJs, and whether the store's claim to the CNPJ is proven (receipts of an unproven one are " +
          "refused, whatever confirms them). An offline (contingency) receipt whose v2 hash matches a CSC, or " +
          "whose v3 signature verifies with the certificate, is credited at once instead of waiting for the " +
          "state's page."
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
