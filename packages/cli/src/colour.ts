/**
 * A little colour for people (bold table headers, a red `error:`), never for scripts: only on a
 * terminal, not with NO_COLOR (non-empty, per no-color.org) or TERM=dumb. FORCE_COLOR overrides
 * both ways, as Node reads it: `0` or `false` turns colour off, any other value on, pipes included.
 */

export interface Styles {
  readonly bold: (text: string) => string
  readonly error: (text: string) => string
}

const sgr = (codes: string, text: string) => `\u001b[${codes}m${text}\u001b[0m`

const COLOURS: Styles = { bold: (text) => sgr("1", text), error: (text) => sgr("1;31", text) }
export const PLAIN: Styles = { bold: (text) => text, error: (text) => text }

const wantsColour = (isTTY: boolean, env: NodeJS.ProcessEnv): boolean => {
  const force = env["FORCE_COLOR"]
  if (force !== undefined) return force !== "0" && force !== "false"
  if (env["NO_COLOR"] || env["TERM"] === "dumb") return false
  return isTTY
}

export const stylesFor = (isTTY: boolean, env: NodeJS.ProcessEnv): Styles => (wantsColour(isTTY, env) ? COLOURS : PLAIN)
