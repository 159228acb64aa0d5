import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client"
import { IDEMPOTENCY_KEY } from "./idempotency-key.js"
import type { AppRouter } from "./router.js"

export interface FidelisClientOptions {
  /** The server's base URL, e.g. `http://localhost:3000`. */
  readonly url: string
  readonly apiKey: string
  /** Admin keys only: the empresa (id or id_name) company procedures act on. */
  readonly empresa?: string
  readonly fetch?: typeof globalThis.fetch
}

/** Per-call options, passed as `{ context: { idempotencyKey } }` to `.mutate()`. */
export interface FidelisCallContext {
  readonly idempotencyKey?: string
  [key: string]: unknown
}

/**
 * A typed client for internal TypeScript services. Calls are not batched, so each carries its own
 * headers (an idempotency key must never apply to a neighbour in a batch) and its own rate-limit hit.
 */
export const createFidelisClient = (options: FidelisClientOptions): TRPCClient<AppRouter> =>
  createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${options.url.replace(/\/+$/, "")}/trpc`,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        headers: ({ op }) => {
          const context = op.context as FidelisCallContext
          return {
            "x-api-key": options.apiKey,
            ...(options.empresa ? { "fidelis-empresa": options.empresa } : {}),
            ...(context.idempotencyKey ? { [IDEMPOTENCY_KEY.header]: context.idempotencyKey } : {})
          }
        }
      })
    ]
  })

export type FidelisClient = ReturnType<typeof createFidelisClient>
export type { AppRouter }
