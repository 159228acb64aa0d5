import type { EmpresaId } from "../ids.js"

/** What a write hands the idempotency service, and what it gets back. */

export interface IdempotentCall {
  readonly empresaId: EmpresaId
  readonly operation: string
  readonly key: string | undefined
  /** The validated input: a replay must carry the same one. */
  readonly request: unknown
}

export interface IdempotentResult<A> {
  readonly value: A
  readonly replayed: boolean
}
