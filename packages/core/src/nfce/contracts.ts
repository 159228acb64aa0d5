import { z } from "zod"
import { Instant, PageQuery, paginated, QueryFlag, Timestamp, Uuid } from "../contracts.js"
import { AlphanumericCnpj } from "../documents.js"
import { EmpresaId } from "../ids.js"
import { DEFAULT_NFCE_MAX_AGE_DAYS } from "../empresas/contracts.js"

/** The 27 federative units, by the abbreviation people and the allow-list use. */
export const Uf = z.enum([
  "AC",
  "AL",
  "AM",
  "AP",
  "BA",
  "CE",
  "DF",
  "ES",
  "GO",
  "MA",
  "MG",
  "MS",
  "MT",
  "PA",
  "PB",
  "PE",
  "PI",
  "PR",
  "RJ",
  "RN",
  "RO",
  "RR",
  "RS",
  "SC",
  "SE",
  "SP",
  "TO"
])
export type Uf = z.infer<typeof Uf>

/** The access key's fields, as written in it (nfce.md section 2). */
export const AccessKeyFields = z.object({
  cuf: z.string().describe("IBGE state code"),
  aamm: z.string().describe("Year and month of issue, YYMM"),
  issuer: z.string().describe("Issuer's CNPJ (letters allowed in its first 12 positions) or 000 + CPF"),
  mod: z.string().describe("Document model: 65 for an NFC-e"),
  serie: z.string(),
  nnf: z.string().describe("Invoice number"),
  tp_emis: z.string().describe("Emission type: 1 normal, 3 or 4 (EPEC) online, 9 offline contingency"),
  cnf: z.string().describe("Random code"),
  cdv: z.string().describe("Mod-11 check digit")
})
export type AccessKeyFields = z.infer<typeof AccessKeyFields>

/** The QR payload layouts in use: version 2 (CSC hash) and 3 (NT 2025.001), each online or offline. */
export const QrLayout = z.enum(["v2_online", "v2_offline", "v3_online", "v3_offline"])
export type QrLayout = z.infer<typeof QrLayout>

/** Why a QR code is refused before anything is fetched; each has a message for people. */
export const QrRefusalReason = z.enum([
  "NOT_NFCE",
  "LEGACY_QR",
  "SCANNER_MANGLED",
  "MALFORMED_PAYLOAD",
  "KEY_FORMAT",
  "CHECK_DIGIT",
  "NOT_MODEL_65",
  "UNKNOWN_STATE",
  "HOST_NOT_OFFICIAL",
  "LAYOUT_MISMATCH",
  "TEST_ENVIRONMENT",
  "ISSUED_IN_FUTURE",
  "TOO_OLD"
])
export type QrRefusalReason = z.infer<typeof QrRefusalReason>

export const QrRefusal = z.object({ reason: QrRefusalReason, message: z.string() })
export type QrRefusal = z.infer<typeof QrRefusal>

/** A QR code that passed every local check: what the key and the payload say. */
export const DecodedQr = z.object({
  access_key: z.string().length(44),
  fields: AccessKeyFields,
  uf: Uf,
  layout: QrLayout,
  tp_amb: z.union([z.literal(1), z.literal(2)]).describe("1 production, 2 homologation (a test invoice)"),
  url: z.string().describe("The consultation URL, with `|` percent-encoded, as the gateway fetches it"),
  offline: z
    .object({
      total_cents: z.number().int().min(0).describe("vNF, the invoice total the merchant's software wrote"),
      issue_date: z.iso.date().describe("AAMM of the key with the payload's day"),
      payload: z
        .string()
        .describe(
          "The decoded `p=` text, whose last field proves who wrote it: the v2 hash checks against the store's " +
            "CSC, the v3 signature against the store's certificate"
        )
    })
    .nullable()
    .describe(
      "Offline layouts only: they carry the total and the day, which only the state's page or the store's " +
        "registered CSC or certificate can confirm"
    )
})
export type DecodedQr = z.infer<typeof DecodedQr>

/** What a state's consultation page said about one invoice (the SefazGateway port's answer). */
export type InvoiceOutcome =
  | {
      readonly status: "ok"
      readonly total_cents: number
      /** Unknown for an offline QR, whose payload has no items. */
      readonly items_count: number | null
      /** ISO date-time from the page, or the day (YYYY-MM-DD) of an offline QR; null when the page omits it. */
      readonly issued_at: string | null
    }
  | { readonly status: "captcha_required"; readonly detail: string }
  | { readonly status: "blocked"; readonly detail: string }
  | { readonly status: "not_found"; readonly detail: string }
  /** Worth another try later: a timeout, a 5xx, a page we could not read. */
  | { readonly status: "unavailable"; readonly detail: string }

export const InspectInput = z
  .object({
    qr_code: z.string().min(1).max(4096).describe("What the QR code holds, normally a state's consultation URL"),
    sandbox: z.boolean().default(false).describe("Judge it as a sandbox empresa would: test invoices (tpAmb 2) pass"),
    max_age_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .nullable()
      .default(DEFAULT_NFCE_MAX_AGE_DAYS)
      .describe(`Oldest issue allowed, in days; null for no limit; default ${DEFAULT_NFCE_MAX_AGE_DAYS}`)
  })
  .meta({
    examples: [
      {
        qr_code: "http://nfce.sefaz.pe.gov.br/nfce/consulta?p=26260942591651264205650010000777891671062850|3|1",
        sandbox: false,
        max_age_days: null
      }
    ]
  })
export type InspectInput = z.infer<typeof InspectInput>

export const InspectResult = z.discriminatedUnion("valid", [
  z.object({ valid: z.literal(true), invoice: DecodedQr }),
  z.object({ valid: z.literal(false), refusal: QrRefusal })
])
export type InspectResult = z.infer<typeof InspectResult>

export const NfceTaskStatus = z
  .enum(["processing", "pending", "completed", "failed", "reversed"])
  .describe(
    "`processing`: asking the state; `pending`: an offline (contingency) receipt whose points wait, unspendable, " +
      "for the state's page or the store's CSC or certificate to confirm it; `completed`: credited; `failed`: " +
      "nothing credited (scanning it again retries); `reversed`: a pending receipt not confirmed in time, its " +
      "points never credited"
  )
export type NfceTaskStatus = z.infer<typeof NfceTaskStatus>

export const DecodeQrInput = z
  .object({
    qr_code: z.string().min(1).max(4096).describe("What the receipt's QR code holds: the state's consultation URL")
  })
  .meta({
    examples: [
      { qr_code: "http://nfce.sefaz.pe.gov.br/nfce/consulta?p=26260942591651264205650010000777891671062850|3|1" }
    ]
  })
export type DecodeQrInput = z.infer<typeof DecodeQrInput>

export const DecodeQrResult = z
  .object({
    success: z.literal(true),
    task_id: Uuid.describe("Poll `GET /nfce/progress/{task_id}` until it is completed or failed"),
    status: NfceTaskStatus,
    message: z.string()
  })
  .meta({ id: "NfceScan" })
export type DecodeQrResult = z.infer<typeof DecodeQrResult>

export const NfceTaskRef = z.object({ task_id: Uuid })

export const NfceProgress = z
  .object({
    task_id: Uuid,
    status: NfceTaskStatus,
    progress: z.number().int().min(0).max(100),
    message: z.string().nullable().describe("What is happening, or why the task failed"),
    points: z.number().int().nullable().describe("Points credited, once completed"),
    pending_points: z
      .number()
      .int()
      .nullable()
      .describe("While pending: the points this receipt credits once confirmed; they cannot be spent until then"),
    confirm_by: Timestamp.nullable().describe(
      "While pending: when the receipt is reversed unless the state's page or the store's proof confirms it"
    )
  })
  .meta({ id: "NfceProgress" })
export type NfceProgress = z.infer<typeof NfceProgress>

export const StoreCnpjInput = z.object({ cnpj: AlphanumericCnpj }).meta({ examples: [{ cnpj: "11.222.333/0001-81" }] })

/** How a CNPJ's claim was proven ("CNPJ claims (security review 2, item 9)"). */
export const CnpjProvenBy = z
  .enum(["profile", "admin"])
  .describe(
    "`profile`: an admin set it as the empresa's profile CNPJ; `admin`: an admin checked that it is the " +
      "store's (its CNPJ card, contract or e-CNPJ certificate) and proved the registration"
  )
export type CnpjProvenBy = z.infer<typeof CnpjProvenBy>

/** Whether an empresa's claim to a CNPJ is proven: its receipts credit nobody until it is. */
export const CnpjClaimState = z.object({
  proven: z
    .boolean()
    .describe(
      "Whether the empresa's claim to this CNPJ is proven. Until it is, receipts naming the CNPJ are refused " +
        "(422 `cnpj_unproven`) and credit nobody; a registered CNPJ is proven by an admin, the profile CNPJ " +
        "from the start"
    ),
  proven_by: CnpjProvenBy.nullable().describe("How it was proven; null while unproven"),
  proven_at: Timestamp.nullable().describe("When it was proven; null while unproven")
})
export type CnpjClaimState = z.infer<typeof CnpjClaimState>

export const StoreCnpj = z
  .object({
    cnpj: z.string().describe("The CNPJ a receipt's access key must name for this empresa's store"),
    created_at: Timestamp,
    ...CnpjClaimState.shape
  })
  .meta({ id: "StoreCnpj" })
export type StoreCnpj = z.infer<typeof StoreCnpj>

export const StoreCnpjs = z.object({
  data: z.array(StoreCnpj),
  profile_cnpj: z
    .string()
    .nullable()
    .describe("The empresa's own CNPJ, which selects it too; set by an admin, so always proven")
})

/** One CNPJ's claim as an admin sees it: whose it is, and whether it is proven. */
export const CnpjClaim = z
  .object({
    cnpj: z.string(),
    empresa_id: EmpresaId.describe("The empresa that holds the CNPJ"),
    on_profile: z.boolean().describe("Whether it is that empresa's profile CNPJ"),
    registered: z.boolean().describe("Whether that empresa registered it for NFC-e (`POST /nfce/cnpjs`)"),
    ...CnpjClaimState.shape,
    created_at: Timestamp.describe("When the empresa first claimed it")
  })
  .meta({ id: "CnpjClaim" })
export type CnpjClaim = z.infer<typeof CnpjClaim>

export const CnpjClaimPage = paginated(CnpjClaim)

export const ListCnpjClaimsInput = z.object({
  proven: QueryFlag.optional().describe(
    "Only the proven claims (true) or only those waiting for proof (false); all when absent"
  ),
  empresa_id: EmpresaId.optional().describe("Only this empresa's claims"),
  ...PageQuery
})
export type ListCnpjClaimsInput = z.infer<typeof ListCnpjClaimsInput>

export const CnpjClaimRef = z.object({ cnpj: AlphanumericCnpj.describe("The claimed CNPJ") })

export const ProveCnpjClaimInput = z
  .object({
    cnpj: AlphanumericCnpj.describe("The claimed CNPJ"),
    empresa_id: EmpresaId.describe(
      "The empresa whose claim was checked: a claim held by any other empresa is refused (CNPJ_TAKEN)"
    )
  })
  .meta({ examples: [{ cnpj: "11.222.333/0001-81", empresa_id: "8f14e45f-ceea-4f6a-9ef1-3c5b2a7d9e10" }] })
export type ProveCnpjClaimInput = z.infer<typeof ProveCnpjClaimInput>

export const ListInvoicesInput = z.object({
  status: NfceTaskStatus.optional().describe("Only the scans whose task is in this state"),
  from: Instant.optional().describe("Scanned at or after this instant"),
  to: Instant.optional().describe("Scanned before this instant"),
  ...PageQuery
})
export type ListInvoicesInput = z.infer<typeof ListInvoicesInput>

export const NfceInvoice = z
  .object({
    id: Uuid.describe("The scan task's id"),
    access_key: z.string(),
    status: NfceTaskStatus,
    progress: z.number().int(),
    message: z.string().nullable(),
    client_id: Uuid.nullable(),
    valor_total: z.number().nullable(),
    items_count: z.number().int().nullable(),
    points_credited: z.number().int().nullable(),
    pending_points: z
      .number()
      .int()
      .nullable()
      .describe("An offline receipt's points awaiting confirmation (kept as a record once reversed)"),
    confirmed_by: z
      .enum(["state_page", "csc", "signature"])
      .nullable()
      .describe(
        "What confirmed a completed receipt: the state's page, the v2 hash with the store's CSC, or the v3 signature"
      ),
    confirm_by: Timestamp.nullable().describe("An offline receipt's deadline for confirmation"),
    issued_at: Timestamp.nullable(),
    created_at: Timestamp.describe("When it was scanned"),
    completed_at: Timestamp.nullable()
  })
  .meta({ id: "NfceInvoice" })
export type NfceInvoice = z.infer<typeof NfceInvoice>

export const NfceInvoicePage = paginated(NfceInvoice)

const CnpjPath = AlphanumericCnpj.describe("One of the store's CNPJs: registered, or the one on its profile")

export const StoreCnpjRef = z.object({ cnpj: CnpjPath })

const CscId = z.coerce
  .number()
  .int()
  .min(0)
  .max(999_999)
  .describe("The CSC's id at the state (cIdToken, printed in v2 QR codes), 0 to 999999")

export const SetCscInput = z
  .object({
    cnpj: CnpjPath,
    csc_id: CscId,
    csc_token: z
      .string()
      .min(16)
      .max(64)
      .regex(/^[\x21-\x7E]+$/, "Use the CSC as the state issued it: letters, digits and symbols, no spaces")
      .describe("The CSC itself (Código de Segurança do Contribuinte): kept encrypted, never shown again")
  })
  .meta({ examples: [{ cnpj: "11.222.333/0001-81", csc_id: 1, csc_token: "A1B2C3D4-E5F6-4789-ABCD-0123456789EF" }] })
export type SetCscInput = z.infer<typeof SetCscInput>

export const CscRef = z.object({ cnpj: CnpjPath, csc_id: CscId })

export const StoreCsc = z
  .object({
    cnpj: z.string(),
    csc_id: z.number().int(),
    token_hint: z.string().describe("The CSC's last 4 characters, masked: the token itself is never returned"),
    created_at: Timestamp
  })
  .meta({ id: "StoreCsc" })
export type StoreCsc = z.infer<typeof StoreCsc>

export const SetCertificateInput = z
  .object({
    cnpj: CnpjPath,
    certificate_pem: z
      .string()
      .min(1)
      .max(16_384)
      .describe("The public X.509 certificate (PEM) whose RSA key signs the CNPJ's v3 offline QR codes; no private key")
  })
  .meta({
    examples: [
      {
        cnpj: "11.222.333/0001-81",
        certificate_pem: "-----BEGIN CERTIFICATE-----\nMIIC…\n-----END CERTIFICATE-----\n"
      }
    ]
  })
export type SetCertificateInput = z.infer<typeof SetCertificateInput>

export const StoreCertificate = z
  .object({
    cnpj: z.string(),
    subject: z.string().describe("Whom the certificate names, e.g. CN=LOJA SOL LTDA:11222333000181, C=BR"),
    issuer: z.string().describe("Who issued it"),
    not_before: Timestamp.describe("Valid from"),
    not_after: Timestamp.describe("Valid until: receipts issued after it are not confirmed by it"),
    fingerprint_sha256: z.string(),
    created_at: Timestamp
  })
  .meta({ id: "StoreCertificate" })
export type StoreCertificate = z.infer<typeof StoreCertificate>

export const StoreProofs = z
  .object({
    cnpj: z.string(),
    cscs: z.array(StoreCsc).describe("The CSCs that confirm the CNPJ's v2 offline receipts at once"),
    certificate: StoreCertificate.nullable().describe("The certificate that confirms its v3 offline receipts at once"),
    ...CnpjClaimState.shape
  })
  .meta({ id: "StoreProofs" })
