/** One JSON object per line on stdout: what log collectors expect from a container. */
export type Level = "debug" | "info" | "warn" | "error"

export const log = (level: Level, message: string, fields: Record<string, unknown> = {}) => {
  process.stdout.write(`${JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields })}\n`)
}
