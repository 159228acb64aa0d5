/** Where a text stops being JSON and what was expected there, for a person to fix it. */
export interface JsonSyntaxError {
  /** 1-based, counted in characters (UTF-16 code units) like an editor's cursor. */
  readonly line: number
  readonly column: number
  /** 0-based offset in the text. */
  readonly position: number
  readonly expected: string
  readonly found: string
}

const WHITESPACE = /[ \t\n\r]*/y
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LITERAL = /true|false|null/y
const WORD = /[^\s,:[\]{}"]{1,20}/y
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"])
const HEX4 = /[0-9a-fA-F]{4}/y

const matchAt = (pattern: RegExp, text: string, at: number): string | undefined => {
  pattern.lastIndex = at
  return pattern.exec(text)?.[0]
}

/** What stands at `at`, as a person would name it. */
const foundAt = (text: string, at: number): string => {
  if (at >= text.length) return "the end of the body"
  const char = text[at]!
  if (char === "\n") return "a line break"
  if (char === "\t") return "a tab"
  if (char < " " || char === "\uFEFF") {
    return `the character U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
  }
  const word = matchAt(WORD, text, at)
  return word !== undefined && word.length > 1 ? JSON.stringify(word) : `'${char}'`
}

type State = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "after-value"

const EXPECTED: Record<Exclude<State, "after-value">, string> = {
  value: "a value",
  "value-or-close": "a value or ']'",
  key: "a property name in double quotes",
  "key-or-close": "a property name in double quotes or '}'",
  colon: "':' after the property name"
}

/** The end of the string starting at `start` (its opening quote), or where and why it breaks. */
const scanString = (text: string, start: number): number | { at: number; expected: string } => {
  let i = start + 1
  for (;;) {
    if (i >= text.length) return { at: i, expected: "'\"' to close the string" }
    const char = text[i]!
    if (char === '"') return i + 1
    if (char < " ") return { at: i, expected: "an escape (\\n for a line break, \\t for a tab) inside a string" }
    if (char === "\\") {
      const next = text[i + 1]
      if (next === "u" && matchAt(HEX4, text, i + 2) !== undefined) i += 6
      else if (next !== undefined && ESCAPES.has(next)) i += 2
      else return { at: i + 1, expected: 'an escape such as \\n, \\" or \\u00e9 after the backslash' }
    } else i++
  }
}

const positionOf = (text: string, at: number) => {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: at - lineStart + 1, position: at }
}

/**
 * Finds the first place a text breaks JSON's grammar (RFC 8259), scanning with an explicit stack so
 * a deeply nested body cannot overflow ours; undefined when the text is JSON.
 */
export const jsonSyntaxError = (text: string): JsonSyntaxError | undefined => {
  const open: Array<"{" | "["> = []
  // Widened on purpose: `close` and `string` change it too, out of the narrowing's sight.
  let state = "value" as State
  let i = 0
  const fail = (at: number, expected: string): JsonSyntaxError => ({
    ...positionOf(text, at),
    expected,
    found: foundAt(text, at)
  })
  const close = () => {
    open.pop()
    state = "after-value"
    i++
  }
  /** Steps over the string at `i`, then expects `next`; the failure if the string breaks. */
  const string = (next: State): JsonSyntaxError | undefined => {
    const end = scanString(text, i)
    if (typeof end !== "number") return fail(end.at, end.expected)
    state = next
    i = end
    return undefined
  }
  for (;;) {
    i += matchAt(WHITESPACE, text, i)?.length ?? 0
    const char = text[i]
    const top = open.at(-1)
    if (state === "after-value") {
      if (top === undefined) return char === undefined ? undefined : fail(i, "the end of the body")
      if (char === ",") state = top === "{" ? "key" : "value"
      else if (char === (top === "{" ? "}" : "]")) open.pop()
      else return fail(i, top === "{" ? "',' or '}'" : "',' or ']'")
      i++
    } else if (state === "colon") {
      if (char !== ":") return fail(i, EXPECTED.colon)
      state = "value"
      i++
    } else if (state === "key" || state === "key-or-close") {
      if (char === "}" && state === "key-or-close") close()
      else if (char !== '"') return fail(i, EXPECTED[state])
      else {
        const broken = string("colon")
        if (broken !== undefined) return broken
      }
    } else if (char === "]" && state === "value-or-close") {
      close()
    } else if (char === "{" || char === "[") {
      open.push(char)
      state = char === "{" ? "key-or-close" : "value-or-close"
      i++
    } else if (char === '"') {
      const broken = string("after-value")
      if (broken !== undefined) return broken
    } else {
      const token = char === undefined ? undefined : (matchAt(NUMBER, text, i) ?? matchAt(LITERAL, text, i))
      if (token === undefined || token === "") return fail(i, EXPECTED[state])
      state = "after-value"
      i += token.length
    }
  }
}

/** A person's account of why a body is not JSON, e.g. for `{"a": 1,}`. */
export const malformedJsonMessage = (text: string | undefined, error?: unknown): string => {
  const where = text === undefined ? undefined : jsonSyntaxError(text)
  if (where !== undefined) {
    const at = `line ${where.line}, column ${where.column} (position ${where.position})`
    return `Malformed JSON at ${at}: expected ${where.expected}, found ${where.found}`
  }
  // The grammar holds but the parser refused it anyway (e.g. a lone surrogate): say what it said.
  return `Malformed JSON: ${error instanceof Error ? error.message : "the body could not be parsed"}`
}
