import type { Effect } from "effect"
import { setMaxListeners } from "node:events"
import type { AdmissionState } from "./budgets.js"
import type { RateLimited, Unavailable } from "./errors.js"
import type { Credentials, Principal } from "./principal.js"
import { IDEMPOTENCY_KEY } from "./idempotency-key.js"
import { MAX_BATCH_CALLS } from "./limits.js"
import type { CoreRuntime, CoreServices } from "./services.js"

/** Where a procedure call's budget count waits until the call's program makes it (core's `owe`). */
export interface OwedCount {
  count: Effect.Effect<void, RateLimited | Unavailable, CoreServices> | undefined
}

/**
 * What every procedure call carries, whatever the surface (REST, tRPC, MCP, CLI). Adapters build
 * it with `createRequestContext`; they never interpret credentials themselves.
 */
export interface RequestContext {
  readonly runtime: CoreRuntime
  readonly requestId: string
  readonly credentials: Credentials
  readonly idempotencyKey: string | undefined
  /** An admin acting on one empresa's company API (`Fidelis-Empresa` header, CLI `--empresa`). */
  readonly actAsEmpresa: string | undefined
  /** Headers the response must carry (rate limit, replay marker); adapters copy them out. */
  readonly resHeaders: Headers
  readonly signal: AbortSignal | undefined
  /** Set only by in-process callers that are trusted by construction (the local CLI). */
  readonly trustedPrincipal: Principal | undefined
  /** The TCP peer's address, when the call came over the network (the public routes' budget). */
  readonly peerAddress: string | undefined
  /** The request's `X-Forwarded-For`, believed only from a trusted proxy (FIDELIS_TRUSTED_PROXIES). */
  readonly forwardedFor: string | undefined
  /** Who the request is and what it has counted: kernel's own (admission.ts), shared by its calls. */
  readonly admission: AdmissionState
  /** The raw text the surface parses the input from, once read: to say where malformed JSON broke. */
  readonly rawInput?: (() => string | undefined) | undefined
  /** A procedure call's own: the budget count it owes. */
  readonly owed?: OwedCount
  /** How many procedure calls the request carries (a tRPC batch's size); absent: one. */
  readonly calls?: number | undefined
}

export interface RequestContextInit {
  readonly runtime: CoreRuntime
  readonly requestId?: string | undefined
  readonly credentials?: Credentials | undefined
  readonly idempotencyKey?: string | null | undefined
  readonly actAsEmpresa?: string | null | undefined
  readonly resHeaders?: Headers | undefined
  readonly signal?: AbortSignal | undefined
  readonly trustedPrincipal?: Principal | undefined
  readonly clientIp?: string | undefined
  readonly rawInput?: (() => string | undefined) | undefined
  readonly peerAddress?: string | undefined
  readonly forwardedFor?: string | null | undefined
  readonly calls?: number | undefined
}

export const createRequestContext = (init: RequestContextInit): RequestContext => {
  // Each call of a batch listens for the request's abort while its program runs (`runEffect`):
  // up to MAX_BATCH_CALLS at once is expected, not the leak Node warns about past 10.
  if (init.signal !== undefined) setMaxListeners(2 * MAX_BATCH_CALLS, init.signal)
  return {
    runtime: init.runtime,
    requestId: init.requestId ?? crypto.randomUUID(),
    credentials: init.credentials ?? {},
    idempotencyKey: init.idempotencyKey ?? undefined,
    actAsEmpresa: init.actAsEmpresa ?? undefined,
    resHeaders: init.resHeaders ?? new Headers(),
    signal: init.signal,
    trustedPrincipal: init.trustedPrincipal,
    rawInput: init.rawInput,
    peerAddress: init.peerAddress,
    forwardedFor: init.forwardedFor ?? undefined,
    calls: init.calls,
    admission: {}
  }
}

/** Reads the context fields a web-standard request carries in its headers. */
export const requestContextFromHeaders = (
  runtime: CoreRuntime,
  headers: Headers,
  extra: {
    requestId?: string
    signal?: AbortSignal
    resHeaders?: Headers
    rawInput?: () => string | undefined
    peerAddress?: string | undefined
    calls?: number | undefined
  } = {}
): RequestContext =>
  createRequestContext({
    runtime,
    requestId: extra.requestId,
    signal: extra.signal,
    resHeaders: extra.resHeaders,
    rawInput: extra.rawInput,
    peerAddress: extra.peerAddress,
    calls: extra.calls,
    forwardedFor: headers.get("x-forwarded-for"),
    credentials: { apiKey: headers.get("x-api-key"), authorization: headers.get("authorization") },
    idempotencyKey: headers.get(IDEMPOTENCY_KEY.header),
    actAsEmpresa: headers.get("fidelis-empresa")
  })
