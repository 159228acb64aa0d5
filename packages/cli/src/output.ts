import { PLAIN, type Styles } from "./colour.js"

/** How results print: raw JSON for scripts, or tables and key/value lines for people. */

type Row = Readonly<Record<string, unknown>>

interface Page {
  readonly data: ReadonlyArray<unknown>
  readonly total: number
  readonly page: number
  readonly pages: number
}

/** C0 (with DEL) and C1: every character a terminal may act on instead of showing. */
const CONTROL = /\p{Cc}/gu

const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, "0")

/**
 * Text for a person's terminal with every control character shown as `\xHH`: a value a stranger
 * wrote (a survey respondent's name) must not retitle the window, clear the screen, move the cursor
 * (`\r`) or hide a link (OSC 8) in front of whoever reads it.
 */
export const inert = (text: string): string => text.replace(CONTROL, (char) => `\\x${hex(char)}`)

/**
 * JSON text that parses to exactly `value`, with DEL and C1 written as `\u00HH` as well: JSON.stringify
 * escapes C0 itself, and a terminal showing `--json` must not act on an 8-bit CSI either.
 */
export const jsonText = (value: unknown): string =>
  JSON.stringify(value ?? null, null, 2).replace(/[\u007f-\u009f]/g, (char) => `\\u00${hex(char)}`)

const isRecord = (u: unknown): u is Row => typeof u === "object" && u !== null && !Array.isArray(u)

/** Core's paginated shape (`paginated` in core contracts). */
const isPage = (u: unknown): u is Page =>
  isRecord(u) &&
  Array.isArray(u["data"]) &&
  typeof u["total"] === "number" &&
  typeof u["page"] === "number" &&
  typeof u["pages"] === "number"

/** One cell: nested values inline as JSON, absent ones as a dash, never a line break nor a control. */
const cell = (value: unknown): string => {
  if (value === null || value === undefined) return "-"
  const text = typeof value === "object" ? JSON.stringify(value) : String(value)
  return inert(text.replace(/\s*\n\s*/g, " "))
}

const alignedLines = (rows: ReadonlyArray<ReadonlyArray<string>>): string[] => {
  const widths: number[] = []
  for (const row of rows) row.forEach((text, i) => (widths[i] = Math.max(widths[i] ?? 0, text.length)))
  return rows.map((row) => row.map((text, i) => (i === row.length - 1 ? text : text.padEnd(widths[i] ?? 0))).join("  "))
}

const aligned = (rows: ReadonlyArray<ReadonlyArray<string>>): string => alignedLines(rows).join("\n")

const table = (items: ReadonlyArray<unknown>, styles: Styles): string => {
  if (items.length === 0) return "(no results)"
  if (!items.every(isRecord)) return items.map(cell).join("\n")
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))]
  // Styled after padding, so escape codes never count towards a column's width.
  const [header = "", ...rows] = alignedLines([
    columns.map(inert),
    ...items.map((item) => columns.map((column) => cell(item[column])))
  ])
  return [styles.bold(header), ...rows].join("\n")
}

const keyValues = (item: Row): string => aligned(Object.entries(item).map(([key, value]) => [inert(key), cell(value)]))

const human = (value: unknown, styles: Styles): string => {
  if (isPage(value)) {
    const footer = `page ${value.page}/${Math.max(value.pages, 1)} · ${value.total} total`
    return `${table(value.data, styles)}\n${footer}`
  }
  if (Array.isArray(value)) return table(value, styles)
  if (isRecord(value)) return keyValues(value)
  return cell(value)
}

/** The identifier a record is known by: its id, else its code (coupons), else the id it is about. */
const idOf = (item: unknown): string | undefined => {
  if (!isRecord(item)) return undefined
  for (const field of ["id", "uid", "card_id", "client_id"]) {
    const value = item[field]
    if (typeof value === "string") return value
  }
  return undefined
}

/** `--quiet`: only identifiers, one per line, for `xargs` and shell loops. */
const ids = (value: unknown): string => {
  const items = isPage(value) ? value.data : Array.isArray(value) ? value : [value]
  return items
    .flatMap((item) => idOf(item) ?? [])
    .map(inert)
    .join("\n")
}

export type OutputMode = "human" | "json" | "quiet"

/** `--json` wins over `--quiet`; neither is output for people. */
export const outputMode = ({ json, quiet }: { readonly json?: boolean; readonly quiet?: boolean }): OutputMode =>
  json === true ? "json" : quiet === true ? "quiet" : "human"

/** `styles` only ever reach human output: JSON and ids stay plain for whatever reads them. */
export const render = (value: unknown, mode: OutputMode, styles: Styles = PLAIN): string => {
  const text = mode === "json" ? jsonText(value) : mode === "quiet" ? ids(value) : human(value, styles)
  return text === "" ? "" : `${text}\n`
}
