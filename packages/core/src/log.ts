import { Cause, HashMap, Logger } from "effect"

/**
 * One JSON object per line on stdout, what log collectors expect from a container: the server's
 * own lines (start-up, access log) and core's Effect logs share one writer and one set of field
 * names (`timestamp`, `level`, `message`, `request_id`, `error`).
 */
export type Level = "debug" | "info" | "warn" | "error"

/**
 * Lines go out together, at most `FLUSH_MS` after the first of them or once `FLUSH_BYTES` wait: stdout
 * to a file or pipe is a synchronous system call per write on Linux, and the access log writes a line
 * per request (at a thousand requests a second, one write per turn of the event loop was most of a
 * write per request). What a process killed outright had not written yet is lost: at most that long.
 */
const FLUSH_MS = 25
// Counted in characters, not encoded bytes: the lines are JSON, nearly all ASCII, and the bound is loose.
const FLUSH_BYTES = 64 * 1024
let pending: string[] = []
let pendingBytes = 0

const flush = () => {
  if (pending.length === 0) return
  const chunk = pending.join("")
  pending = []
  pendingBytes = 0
  process.stdout.write(chunk)
}

// process.exit() runs no more timers; the lines not yet written still go out.
process.once("exit", flush)

export const log = (level: Level, message: string, fields: Record<string, unknown> = {}) => {
  if (pending.length === 0) setTimeout(flush, FLUSH_MS).unref()
  const line = `${JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields })}\n`
  pending.push(line)
  pendingBytes += line.length
  if (pendingBytes >= FLUSH_BYTES) flush()
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
