import { Cause, HashMap, Logger } from "effect"

/**
 * One JSON object per line on stdout, what log collectors expect from a container: the server's
 * own lines (start-up, access log) and core's Effect logs share one writer and one set of field
 * names (`timestamp`, `level`, `message`, `request_id`, `error`).
 */
export type Level = "debug" | "info" | "warn" | "error"

/**
 * Lines logged in one turn of the event loop go out in one write: stdout to a file or pipe is a
 * synchronous system call per write on Linux, and the access log writes one line per request.
 */
let pending: string[] = []

const flush = () => {
  if (pending.length === 0) return
  const chunk = pending.join("")
  pending = []
  process.stdout.write(chunk)
}

// process.exit() runs no more timers; the lines of the last turn still go out.
process.once("exit", flush)

export const log = (level: Level, message: string, fields: Record<string, unknown> = {}) => {
  if (pending.length === 0) setImmediate(flush)
  pending.push(`${JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields })}\n`)
}

const levelOf = (label: string): Level => {
  switch (label) {
    case "DEBUG":
    case "TRACE":
      return "debug"
    case "WARN":
      return "warn"
    case "ERROR":
    case "FATAL":
      return "error"
    default:
      return "info"
  }
}

/** Effect's logs as the same lines: annotations become fields, a cause becomes `error`. */
export const jsonLines = Logger.make(({ logLevel, message, annotations, cause }) => {
  const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
  log(levelOf(logLevel.label), text, {
    ...Object.fromEntries(HashMap.toEntries(annotations)),
    ...(Cause.isEmpty(cause) ? {} : { error: Cause.pretty(cause) })
  })
})
