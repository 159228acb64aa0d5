import { AsyncLocalStorage } from "node:async_hooks"

const scope = new AsyncLocalStorage<string>()

/**
 * Runs a request's handling with its id in scope, for the few places that meet an error before a
 * request context exists (tRPC formats a wrong media type before it builds one).
 */
export const withRequestId = <A>(requestId: string, run: () => A): A => scope.run(requestId, run)

/** The id of the request being handled, when `withRequestId` set one. */
export const currentRequestId = (): string | undefined => scope.getStore()
