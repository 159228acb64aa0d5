/** What a write hands the idempotency service, and what it gets back. */

export interface IdempotentCall {
  readonly empresaId: string
  readonly operation: string
  readonly key: string | undefined
  /** The validated input: a replay must carry the same one. */
  readonly request: unknown
}

export interface IdempotentResult<A> {
  readonly value: A
  readonly replayed: boolean
}
