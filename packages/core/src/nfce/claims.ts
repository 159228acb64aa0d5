import { SqlClient } from "@effect/sql"
import { onUniqueViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Struct } from "effect"
import { pageOf } from "../contracts.js"
import { Conflict, NotFound } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import { traced } from "../tracing.js"
import type { CnpjClaim, ListCnpjClaimsInput, ProveCnpjClaimInput, StoreCnpj } from "./contracts.js"
import { CLAIM_STATE, NfceProofs } from "./store-proofs.js"

/**
 * The refusal of a CNPJ another empresa holds. It says the CNPJ is taken and not by whom: the
 * store it belongs to is the holder's business (docs/decisions.md, "CNPJ claims").
 */
export const cnpjTaken = (cnpj: string) =>
  new Conflict({
    code: "CNPJ_TAKEN",
    message:
      `cnpj: CNPJ ${cnpj} is already claimed by another empresa on Fidelis, and a CNPJ belongs to one empresa ` +
      "only; if it is yours, ask Fidelis support to check it"
  })

/**
 * Who holds each CNPJ (`cnpj_claims`, kept by migration 0032's triggers from the empresas' profiles
 * and NFC-e registrations, so one CNPJ has one holder whatever writes them), and whether the claim
 * is proven: by an admin, who sets profile CNPJs and proves registrations. Receipts of a CNPJ
 * select its holder, and credit nobody while its claim is unproven.
 */
export class CnpjClaims extends Effect.Service<CnpjClaims>()("core/CnpjClaims", {
  accessors: true,
  dependencies: [NfceProofs.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const proofs = yield* NfceProofs
    const state = sql.literal(CLAIM_STATE)

    /** The empresa receipts from a CNPJ select, with its settings and whether its claim is proven. */
    const holderOf = (cnpj: string) =>
      sql<{ id: EmpresaId; settings: Record<string, unknown>; proven: boolean }>`
        SELECT e.id, e.settings, c.proven_by IS NOT NULL AS proven
        FROM cnpj_claims c JOIN empresas e ON e.id = c.empresa_id
        WHERE c.cnpj = ${cnpj}`.pipe(Effect.map(([row]) => row))

    const registrationsOf = (empresaId: EmpresaId, cnpj?: string) => sql<StoreCnpj>`
      SELECT r.cnpj, r.created_at, ${state}
      FROM empresa_cnpjs r JOIN cnpj_claims c ON c.cnpj = r.cnpj
      WHERE r.empresa_id = ${empresaId} ${cnpj === undefined ? sql`` : sql`AND r.cnpj = ${cnpj}`}
      ORDER BY r.created_at, r.cnpj`

    const registrations = traced("CnpjClaims.registrations")(function* (empresaId: EmpresaId) {
      const data = yield* registrationsOf(empresaId)
      const [empresa] = yield* sql<{ cnpj: string | null }>`SELECT cnpj FROM empresas WHERE id = ${empresaId}`
      return { data: [...data], profile_cnpj: empresa?.cnpj ?? null }
    })

    /**
     * Registers a CNPJ the empresa issues receipts from, unproven until an admin proves it; again for
     * the same empresa changes nothing. Another empresa's, registered or on its profile, is refused
     * by the claims trigger's unique violation: the claim, not this table's key, is what is unique.
     */
    const register = traced("CnpjClaims.register")(function* (empresaId: EmpresaId, cnpj: string) {
      yield* sql`
        INSERT INTO empresa_cnpjs (cnpj, empresa_id) VALUES (${cnpj}, ${empresaId})
        ON CONFLICT (empresa_id, cnpj) DO NOTHING`.pipe(onUniqueViolation(() => cnpjTaken(cnpj)))
      const [registration] = yield* registrationsOf(empresaId, cnpj)
      return registration!
    })

    /** Removes a registration and the proofs kept for it; its claim goes unless the profile names the CNPJ. */
    const unregister = traced("CnpjClaims.unregister")(function* (empresaId: EmpresaId, cnpj: string) {
      const [registration] = yield* registrationsOf(empresaId, cnpj)
      if (registration === undefined) return yield* new NotFound({ resource: "Store CNPJ", id: cnpj })
      yield* sql`DELETE FROM empresa_cnpjs WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj}`
      yield* proofs.forget(empresaId, cnpj)
      return registration
    })

    const claims = (filter: { cnpj?: string; proven?: boolean; empresa_id?: string; page: number; per_page: number }) =>
      sql<CnpjClaim & { total: number }>`
        SELECT c.cnpj, c.empresa_id, e.cnpj IS NOT DISTINCT FROM c.cnpj AS on_profile,
               EXISTS (SELECT 1 FROM empresa_cnpjs r
                       WHERE r.empresa_id = c.empresa_id AND r.cnpj = c.cnpj) AS registered,
               ${state}, c.created_at, count(*) OVER ()::int AS total
        FROM cnpj_claims c JOIN empresas e ON e.id = c.empresa_id
        WHERE true
          ${filter.cnpj === undefined ? sql`` : sql`AND c.cnpj = ${filter.cnpj}`}
          ${filter.proven === undefined ? sql`` : sql`AND (c.proven_by IS NOT NULL) = ${filter.proven}`}
          ${filter.empresa_id === undefined ? sql`` : sql`AND c.empresa_id = ${filter.empresa_id}`}
        ORDER BY c.created_at, c.cnpj
        LIMIT ${filter.per_page} OFFSET ${(filter.page - 1) * filter.per_page}`

    /** The claims, oldest first: with `proven: false`, the queue of registrations waiting for an admin. */
    const list = traced("CnpjClaims.list")(function* (input: ListCnpjClaimsInput) {
      const rows = yield* claims(input)
      const data = rows.map((row) => Struct.omit(row, "total"))
      return pageOf(data, rows[0]?.total ?? 0, input.page, input.per_page)
    })

    const get = traced("CnpjClaims.get")(function* (cnpj: string) {
      const [row] = yield* claims({ cnpj, page: 1, per_page: 1 })
      if (row === undefined) return yield* new NotFound({ resource: "CNPJ claim", id: cnpj })
      return Struct.omit(row, "total")
    })

    /**
     * An admin proves the claim of the empresa it checked; the empresa is named so that a claim
     * someone else holds is never proven by mistake. Proving a proven claim changes nothing.
     */
    const prove = traced("CnpjClaims.prove")(function* (input: ProveCnpjClaimInput) {
      yield* sql`
        UPDATE cnpj_claims SET proven_by = 'admin', proven_at = now()
        WHERE cnpj = ${input.cnpj} AND empresa_id = ${input.empresa_id} AND proven_by IS NULL`
      const claim = yield* get(input.cnpj)
      if (claim.empresa_id !== input.empresa_id)
        return yield* new Conflict({
          code: "CNPJ_TAKEN",
          message:
            `cnpj: CNPJ ${input.cnpj} is claimed by empresa ${claim.empresa_id}, not ${input.empresa_id}: ` +
            "nothing proven"
        })
      return claim
    })

    /**
     * An admin takes a CNPJ back from the empresa that registered it (a store registered another's
     * CNPJ), with the proofs kept for it. A profile CNPJ is released by changing the profile.
     */
    const release = traced("CnpjClaims.release")(function* (cnpj: string) {
      const claim = yield* get(cnpj)
      if (claim.on_profile)
        return yield* new Conflict({
          code: "CNPJ_ON_PROFILE",
          message:
            `cnpj: CNPJ ${cnpj} is the profile CNPJ of empresa ${claim.empresa_id}: ` +
            "change that empresa's cnpj (PATCH /empresas/{empresa_id}) to release it"
        })
      yield* unregister(claim.empresa_id, cnpj)
      return claim
    })

    return {
      holderOf,
      ...sqlErrorsAsDefects({ registrations, register, unregister, list, get, prove, release })
    }
  })
}) {}
