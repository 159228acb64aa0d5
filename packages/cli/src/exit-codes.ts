import type { TRPC_ERROR_CODE_KEY } from "@trpc/server"

/**
 * The process exit status says what kind of failure it was, so scripts can branch without parsing
 * messages. Documented in the program's help epilogue and the package README.
 */
export const ExitCode = {
  Ok: 0,
  Failure: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Conflict: 5,
  RateLimited: 6,
  Unavailable: 7,
  Config: 8,
  Interrupted: 130
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

const byTrpcCode: Partial<Record<TRPC_ERROR_CODE_KEY, ExitCode>> = {
  PARSE_ERROR: ExitCode.Usage,
  BAD_REQUEST: ExitCode.Usage,
  UNPROCESSABLE_CONTENT: ExitCode.Usage,
  PAYLOAD_TOO_LARGE: ExitCode.Usage,
  UNAUTHORIZED: ExitCode.Auth,
  FORBIDDEN: ExitCode.Auth,
  NOT_FOUND: ExitCode.NotFound,
  CONFLICT: ExitCode.Conflict,
  PRECONDITION_FAILED: ExitCode.Conflict,
  TOO_MANY_REQUESTS: ExitCode.RateLimited,
  BAD_GATEWAY: ExitCode.Unavailable,
  SERVICE_UNAVAILABLE: ExitCode.Unavailable,
  GATEWAY_TIMEOUT: ExitCode.Unavailable,
  CLIENT_CLOSED_REQUEST: ExitCode.Interrupted
}

export const exitCodeOf = (code: TRPC_ERROR_CODE_KEY | undefined): ExitCode =>
  (code && byTrpcCode[code]) ?? ExitCode.Failure

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    unexpected failure
  2    usage error or invalid input (400, 422)
  3    not authenticated or not allowed (401, 403)
  4    not found (404)
  5    conflict: a business rule or an idempotency clash refused it (409)
  6    rate limited (429)
  7    unavailable: embedded database busy, database or server unreachable
  8    configuration: the config file is invalid, or names an unknown profile or key
  130  interrupted (Ctrl-C)`

/** A command failed in a way already explained: one line for stderr and the exit status. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode
  ) {
    super(message)
    this.name = "CommandFailed"
  }
}

const isIssue = (u: unknown): u is { loc: ReadonlyArray<string | number>; msg: string } =>
  typeof u === "object" && u !== null && Array.isArray((u as { loc?: unknown }).loc) && "msg" in u

/**
 * Turns core's problem `detail` (a message, validation items, or a conflict's code and message)
 * into one line that names every invalid field and the HTTP status a REST caller would see.
 */
export const problemLine = (detail: unknown, status: number | undefined, fallback: string): string => {
  const suffix = (extra?: string) => {
    const parts = [status, extra].filter((p) => p !== undefined)
    return parts.length > 0 ? ` (${parts.join(" ")})` : ""
  }
  if (Array.isArray(detail) && detail.every(isIssue)) {
    return `invalid input: ${detail.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")}${suffix()}`
  }
  if (typeof detail === "object" && detail !== null && "message" in detail) {
    const { code, message } = detail as { code?: unknown; message: unknown }
    return `${String(message)}${suffix(typeof code === "string" ? code : undefined)}`
  }
  return `${typeof detail === "string" ? detail : fallback}${suffix()}`
}
