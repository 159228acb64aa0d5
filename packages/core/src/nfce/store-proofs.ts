import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Clock, Effect, Either } from "effect"
import { NotFound, ValidationFailed } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import { Secrets } from "../secrets.js"
import { traced } from "../tracing.js"
import type {
  CnpjClaimState,
  DecodedQr,
  SetCertificateInput,
  SetCscInput,
  StoreCertificate,
  StoreCsc
} from "./contracts.js"
import type { ProofVerdict } from "./offline.js"
import { cscMatches, parseCertificate, proofOf, signatureMatches } from "./proof.js"

/** What the sealed CSC is bound to: a token copied to another row or store does not open there. */
const cscContext = (empresaId: EmpresaId, cnpj: string, cscId: string) => `nfce_cscs:${empresaId}:${cnpj}:${cscId}`

/** Whether the CNPJ claim `c` (`cnpj_claims`) is proven, as `CnpjClaimState` reads it. */
export const CLAIM_STATE = "c.proven_by IS NOT NULL AS proven, c.proven_by, c.proven_at"

const CERTIFICATE_COLUMNS =
  "cnpj, subject, issuer, not_before, not_after, fingerprint AS fingerprint_sha256, created_at"

/**
 * What a store registers per CNPJ so its offline receipts confirm at once: CSCs (the secret the v2
 * hash is made with, sealed by `Secrets`, never returned) and the certificate whose key signs v3
 * QR codes. Only the store's own CNPJs (registered, or the profile's) take them, proven or not: they
 * confirm receipts, never the claim, since a store picks its CSC and certificate itself.
 */
export class NfceProofs extends Effect.Service<NfceProofs>()("core/NfceProofs", {
  accessors: true,
  dependencies: [Secrets.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const certificateColumns = sql.literal(CERTIFICATE_COLUMNS)
    const claimState = sql.literal(CLAIM_STATE)

    /** The empresa's claim to a CNPJ (registered, or its profile's), proven or not; another's is a 404. */
    const ownCnpj = (empresaId: EmpresaId, cnpj: string) =>
      Effect.gen(function* () {
        const [own] = yield* sql<CnpjClaimState>`
          SELECT ${claimState} FROM cnpj_claims c WHERE c.empresa_id = ${empresaId} AND c.cnpj = ${cnpj}`
        if (own === undefined) return yield* new NotFound({ resource: "Store CNPJ", id: cnpj })
        return own
      })

    const cscsOf = (empresaId: EmpresaId, cnpj: string) => sql<StoreCsc>`
      SELECT cnpj, csc_id::int AS csc_id, token_hint, created_at FROM nfce_cscs
      WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj} ORDER BY csc_id::int`

    const proofs = traced("NfceProofs.proofs")(function* (empresaId: EmpresaId, cnpj: string) {
      const claim = yield* ownCnpj(empresaId, cnpj)
      const cscs = yield* cscsOf(empresaId, cnpj)
      const [certificate] = yield* sql<StoreCertificate>`
        SELECT ${certificateColumns} FROM nfce_certificates WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}`
      return { cnpj, cscs: [...cscs], certificate: certificate ?? null, ...claim }
    })

    /** Registers a CSC, or replaces the token of one with the same id. */
    const setCsc = traced("NfceProofs.setCsc")(function* (empresaId: EmpresaId, input: SetCscInput) {
      yield* ownCnpj(empresaId, input.cnpj)
      const cscId = String(input.csc_id)
      const sealed = yield* secrets.seal(input.csc_token, cscContext(empresaId, input.cnpj, cscId))
      const [row] = yield* sql<StoreCsc>`
        INSERT INTO nfce_cscs (empresa_id, cnpj, csc_id, token_sealed, token_hint)
        VALUES (${empresaId}, ${input.cnpj}, ${cscId}, ${sealed}, ${`****${input.csc_token.slice(-4)}`})
        ON CONFLICT (empresa_id, cnpj, csc_id) DO UPDATE
          SET token_sealed = EXCLUDED.token_sealed, token_hint = EXCLUDED.token_hint, created_at = now()
        RETURNING cnpj, csc_id::int AS csc_id, token_hint, created_at`
      return row!
    })

    const removeCsc = traced("NfceProofs.removeCsc")(function* (empresaId: EmpresaId, cnpj: string, cscId: number) {
      const [row] = yield* sql<StoreCsc>`
        DELETE FROM nfce_cscs WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj} AND csc_id = ${String(cscId)}
        RETURNING cnpj, csc_id::int AS csc_id, token_hint, created_at`
      if (row === undefined) return yield* new NotFound({ resource: "CSC", id: `${cnpj}/${cscId}` })
      return row
    })

    /** Registers the CNPJ's certificate (one at a time: a renewal replaces it), parsed and checked first. */
    const setCertificate = traced("NfceProofs.setCertificate")(function* (
      empresaId: EmpresaId,
      input: SetCertificateInput
    ) {
      yield* ownCnpj(empresaId, input.cnpj)
      const now = new Date(yield* Clock.currentTimeMillis)
      const parsed = parseCertificate(input.certificate_pem, now)
      if (Either.isLeft(parsed))
        return yield* new ValidationFailed({
          issues: [{ loc: ["body", "certificate_pem"], msg: parsed.left, type: "invalid_certificate" }]
        })
      const info = parsed.right
      const [row] = yield* sql<StoreCertificate>`
        INSERT INTO nfce_certificates (empresa_id, cnpj, pem, subject, issuer, not_before, not_after, fingerprint)
        VALUES (${empresaId}, ${input.cnpj}, ${info.pem}, ${info.subject}, ${info.issuer}, ${info.not_before},
                ${info.not_after}, ${info.fingerprint})
        ON CONFLICT (empresa_id, cnpj) DO UPDATE
          SET pem = EXCLUDED.pem, subject = EXCLUDED.subject, issuer = EXCLUDED.issuer,
              not_before = EXCLUDED.not_before, not_after = EXCLUDED.not_after,
              fingerprint = EXCLUDED.fingerprint, created_at = now()
        RETURNING ${certificateColumns}`
      return row!
    })

    const removeCertificate = traced("NfceProofs.removeCertificate")(function* (empresaId: EmpresaId, cnpj: string) {
      const [row] = yield* sql<StoreCertificate>`
        DELETE FROM nfce_certificates WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}
        RETURNING ${certificateColumns}`
      if (row === undefined) return yield* new NotFound({ resource: "Certificate of store CNPJ", id: cnpj })
      return row
    })

    /** Forgets what a CNPJ no longer issuing for the store had registered. */
    const forget = (empresaId: EmpresaId, cnpj: string) =>
      Effect.all(
        [
          sql`DELETE FROM nfce_cscs WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}`,
          sql`DELETE FROM nfce_certificates WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}`
        ],
        { discard: true }
      )

    /**
     * Whether an offline receipt's own proof confirms it against what its store registered for the
     * issuing CNPJ: the v2 hash with the CSC of the QR's id, or the v3 signature with the certificate
     * valid on the issue day. `none` when the store registered nothing that applies.
     */
    const verdict = (empresaId: EmpresaId, invoice: DecodedQr) =>
      Effect.gen(function* () {
        const offline = invoice.offline
        // Tasks queued before the payload was kept have nothing to check.
        const proof = offline === null || offline.payload === undefined ? undefined : proofOf(offline.payload)
        if (proof === undefined) return "none"
        const cnpj = invoice.fields.issuer
        if (proof.kind === "csc") {
          const [row] = yield* sql<{ token_sealed: string }>`
            SELECT token_sealed FROM nfce_cscs
            WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj} AND csc_id = ${proof.cscId}`
          if (row === undefined) return "none"
          const csc = yield* secrets.open(row.token_sealed, cscContext(empresaId, cnpj, proof.cscId))
          if (csc === undefined) {
            yield* Effect.logWarning("a CSC does not open with FIDELIS_SECRET_KEY; was the key changed?")
            return "none"
          }
          return cscMatches(proof, csc) ? "confirmed" : "mismatch"
        }
        const [row] = yield* sql<{ pem: string; valid: boolean }>`
          SELECT pem, ${offline!.issue_date}::date BETWEEN not_before::date AND not_after::date AS valid
          FROM nfce_certificates WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}`
        if (row === undefined) return "none"
        return row.valid && signatureMatches(proof, row.pem) ? "confirmed" : "mismatch"
      }).pipe(Effect.map((result): ProofVerdict => result))

    return {
      ...sqlErrorsAsDefects({ proofs, setCsc, removeCsc, setCertificate, removeCertificate }),
      forget,
      verdict
    }
  })
}) {}
