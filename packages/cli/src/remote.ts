import { procedureAt } from "@fidelis/core"
import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server"
import { CommandFailed, ExitCode, exitCodeOf, problemLine } from "./exit-codes.js"
import type { Transport } from "./transport.js"

export interface RemoteOptions {
  readonly url: string
  readonly apiKey: string | undefined
  readonly empresa: string | undefined
  readonly signal: AbortSignal | undefined
}

/** What core's tRPC error formatter puts in `error.data` (core trpc.ts). */
interface ErrorData {
  readonly code?: TRPC_ERROR_CODE_KEY
  readonly httpStatus?: number
  readonly detail?: unknown
  /** The machine code every error body carries (`code` on the other surfaces). */
  readonly error_code?: string
  readonly request_id?: string
}

const checkedUrl = (url: string) => {
  try {
    return new URL(url).href
  } catch {
    throw new CommandFailed(
      `invalid --url ${JSON.stringify(url)}: expected something like https://fidelis.example.com`,
      ExitCode.Usage
    )
  }
}

/**
 * The CLI follows no redirect: fetch would send X-API-Key on to wherever a server points (only
 * `Authorization` is dropped across origins), and a server the user named must not hand their key to
 * one they did not.
 */
const redirectFailure = (response: Response, endpoint: string) => {
  const target = response.headers.get("location") ?? "another address"
  return new CommandFailed(
    `${endpoint} answered ${response.status}, a redirect to ${target}; ` +
      "the CLI follows no redirect, so the API key is sent only to the server --url names: " +
      "give the final address as --url",
    ExitCode.Failure
  )
}

const callFailure = (error: unknown, options: RemoteOptions, response: Response | undefined): CommandFailed => {
  const endpoint = `${options.url.replace(/\/+$/, "")}/trpc`
  if (response !== undefined && response.status >= 300 && response.status < 400) {
    return redirectFailure(response, endpoint)
  }
  if (!(error instanceof TRPCClientError)) return new CommandFailed(String(error), ExitCode.Failure)
  const data = (error.data ?? undefined) as ErrorData | undefined
  if (data?.code !== undefined) {
    const status = data.httpStatus
    let line = problemLine(data.detail, status, error.message)
    if (data.code === "UNAUTHORIZED" && options.apiKey === undefined) {
      line += "; pass --api-key, set FIDELIS_API_KEY or add api_key to a profile (fidelis config set api_key)"
    }
    const requestId = data.request_id ?? response?.headers.get("x-request-id") ?? undefined
    // A 500 hides its cause; the request id is what finds it in the server's log.
    if (requestId !== undefined && status !== undefined && status >= 500) line += `, request id ${requestId}`
    const body = {
      detail: data.detail ?? error.message,
      code: data.error_code ?? data.code,
      ...(requestId !== undefined && { request_id: requestId })
    }
    return new CommandFailed(line, exitCodeOf(status), body)
  }
  if (response === undefined) {
    const cause = error.cause
    const reason = cause?.cause instanceof Error ? cause.cause.message : (cause?.message ?? error.message)
    return new CommandFailed(`cannot reach ${endpoint}: ${reason}`, ExitCode.Unavailable)
  }
  const unavailable = response.status === 502 || response.status === 503 || response.status === 504
  return new CommandFailed(
    `unexpected response from ${endpoint} (HTTP ${response.status}); is --url a Fidelis server?`,
    unavailable ? ExitCode.Unavailable : ExitCode.Failure
  )
}

/** Calls a Fidelis server's tRPC endpoint with an API key, through core's own typed client. */
export const openRemote = (options: RemoteOptions): Transport => {
  const url = checkedUrl(options.url)
  return {
    call: async ({ path, type, input, idempotencyKey }) => {
      // Kept so success and failure alike can read the response headers the tRPC client hides.
      let response: Response | undefined
      const client = createFidelisClient({
        url,
        // An empty key reaches the server as no key, which answers with the usual 401.
        apiKey: options.apiKey ?? "",
        ...(options.empresa !== undefined && { empresa: options.empresa }),
        fetch: async (request, init) => (response = await fetch(request, { ...init, redirect: "manual" }))
      })
      try {
        const procedure = procedureAt(client, path)
        const value = await procedure[type === "query" ? "query" : "mutate"](input, {
          context: { idempotencyKey },
          signal: options.signal
        })
        return { value, headers: response?.headers ?? new Headers() }
      } catch (error) {
        throw callFailure(error, options, response)
      }
    },
    close: async () => {}
  }
}
