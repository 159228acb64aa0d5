import { errorKindOfStatus, type ErrorCode } from "@fidelis/core"

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

/**
 * By the failure's HTTP status: the kind of error core gives with it, from core's one table (a
 * framework refusal like PARSE_ERROR shares BadRequest's 400). What no kind gives follows its
 * class: another 4xx means the request was wrong (a body too large), 499 an interruption, and a
 * 502 or 504 an unreachable server, like core's own 503.
 */
export const exitCodeOf = (status: number | undefined): ExitCode => {
  if (status === undefined) return ExitCode.Failure
  const kind = errorKindOfStatus(status)
  if (kind !== undefined) return kind.exit
  if (status === 499) return ExitCode.Interrupted
  if (status >= 400 && status < 500) return ExitCode.Usage
  return status === 502 || status === 504 ? ExitCode.Unavailable : ExitCode.Failure
}

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    unexpected failure
  2    usage error or invalid input (400, 422); local mode while a server holds the database (use --url)
  3    not authenticated or not allowed (401, 403)
  4    not found (404)
  5    conflict: a business rule or an idempotency clash refused it (409)
  6    rate limited (429)
  7    unavailable: embedded database busy (another command), database or server unreachable
  8    configuration: the config file is invalid, or names an unknown profile or key
  130  interrupted (Ctrl-C)`

/**
 * A failure as `--json` prints it: the server's error body (`detail`, `code`, `request_id`), or
 * for a failure of the CLI's own, its message and a code of the same kind.
 */
export interface ErrorBody {
  readonly detail: unknown
  readonly code: string
  readonly request_id?: string
}

/**
 * The codes of failures no server answered, by exit status: core's codes where one fits, and two
 * of the CLI's own (USAGE_ERROR, CONFIG_ERROR) for what only a command line can get wrong.
 */
const OWN_CODES: Record<ExitCode, ErrorCode | "USAGE_ERROR" | "CONFIG_ERROR"> = {
  [ExitCode.Ok]: "INTERNAL_ERROR",
  [ExitCode.Failure]: "INTERNAL_ERROR",
  [ExitCode.Usage]: "USAGE_ERROR",
  [ExitCode.Auth]: "UNAUTHENTICATED",
  [ExitCode.NotFound]: "NOT_FOUND",
  [ExitCode.Conflict]: "BAD_REQUEST",
  [ExitCode.RateLimited]: "RATE_LIMIT_EXCEEDED",
  [ExitCode.Unavailable]: "SERVICE_UNAVAILABLE",
  [ExitCode.Config]: "CONFIG_ERROR",
  [ExitCode.Interrupted]: "REQUEST_ABORTED"
}

/** A command failed in a way already explained: one line for stderr and the exit status. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** The server's error body, when a call failed. */
    readonly problem?: ErrorBody
  ) {
    super(message)
    this.name = "CommandFailed"
  }

  /** What `--json` prints on stderr. */
  get body(): ErrorBody {
    return this.problem ?? { detail: this.message, code: OWN_CODES[this.exitCode] }
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
