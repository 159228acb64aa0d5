/** One procedure call, its input already in the procedure's own (wire) field names. */
export interface Call {
  readonly path: string
  readonly type: "query" | "mutation"
  readonly input: Readonly<Record<string, unknown>>
  readonly idempotencyKey: string | undefined
}

export interface Reply {
  readonly value: unknown
  /** What an HTTP caller would see in the response headers (replay marker, rate limit, request id). */
  readonly headers: Headers
}

/**
 * Where calls go: the core in this process, or a server over tRPC. Failures surface as
 * `CommandFailed`, already classified.
 */
export interface Transport {
  readonly call: (call: Call) => Promise<Reply>
  readonly close: () => Promise<void>
}
