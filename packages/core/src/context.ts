import { setMaxListeners } from "node:events"
import type { Admission } from "./auth/admission.js"
import type { Credentials, Principal } from "./auth/principal.js"
import { IDEMPOTENCY_KEY } from "./idempotency/key.js"
import { MAX_BATCH_CALLS } from "./limits.js"
import type { CoreRuntime } from "./runtime.js"

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
  /** Set by the first authentication; shared by every call the request carries. */
  admission?: Admission
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
    trustedPrincipal: init.trustedPrincipal
  }
}

/** Reads the context fields a web-standard request carries in its headers. */
export const requestContextFromHeaders = (
  runtime: CoreRuntime,
  headers: Headers,
  extra: { requestId?: string; signal?: AbortSignal; resHeaders?: Headers } = {}
): RequestContext =>
  createRequestContext({
    runtime,
    requestId: extra.requestId,
    signal: extra.signal,
    resHeaders: extra.resHeaders,
    credentials: { apiKey: headers.get("x-api-key"), authorization: headers.get("authorization") },
    idempotencyKey: headers.get(IDEMPOTENCY_KEY.header),
    actAsEmpresa: headers.get("fidelis-empresa")
  })
