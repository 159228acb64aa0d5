/** One JSON object per line on stdout: what log collectors expect from a container. */
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
