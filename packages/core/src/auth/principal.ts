import type { EmpresaId, KeyId } from "../ids.js"

/** The request's credentials exactly as they arrived; core decides what they mean. */
export interface Credentials {
  readonly apiKey?: string | null | undefined
  readonly authorization?: string | null | undefined
}

/** The credential of an `Authorization: Bearer <credential>` header; undefined for any other shape. */
export const bearerOf = (authorization: string | null | undefined): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1]

/** Who is calling, once credentials are checked. */
export type Principal =
  | { readonly kind: "company"; readonly keyId: KeyId; readonly empresaId: EmpresaId }
  /** Platform staff: an admin-scope key, `FIDELIS_ADMIN_KEY`, or the in-process CLI. */
  | { readonly kind: "admin"; readonly keyId: KeyId | null; readonly via: "key" | "env" | "local" }

export const LOCAL_ADMIN: Principal = { kind: "admin", keyId: null, via: "local" }
