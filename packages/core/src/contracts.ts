import { z } from "zod"

/** Shared wire shapes; each domain's own shapes live in its folder. */

/**
 * Any canonical UUID (8-4-4-4-12 hex digits), as `format: uuid` and PostgreSQL's `uuid` read one: not
 * zod's `uuid()`, which also demands RFC 9562's version and variant digits that no document states
 * (docs/decisions.md, "Any canonical UUID").
 */
export const Uuid = z.guid()

/**
 * A boolean in a request body: JSON true or false only. (trpc-to-openapi coerces body fields, and
 * `Boolean("false")` would read as true.) In a query string use `z.stringbool()`.
 */
export const Flag = z.union([z.literal(true), z.literal(false)])

/**
 * A boolean in a query string: `true|false|1|0|yes|no|on|off`, or a JSON boolean (MCP and tRPC
 * callers send real booleans).
 */
export const QueryFlag = z
  .union([z.boolean(), z.stringbool()], { error: "Use true or false (also 1/0, yes/no, on/off)" })
  .pipe(z.boolean())

/**
 * A number in a request body: JSON numbers only. trpc-to-openapi makes every number field of an
 * input coerce (so "10" would pass as 10 and null as 0); it leaves a pipe alone, and the pipe's
 * input side keeps every constraint in the OpenAPI and MCP schemas.
 */
export const JsonNumber = (schema: z.ZodNumber) => schema.pipe(z.number())

/**
 * Every URL a caller gives us to show or link (a logo, a picture, a review link): http or https,
 * at most 2,048 characters. `javascript:`, `data:`, `file:` and the rest are refused: the pages and
 * emails that show these URLs would run or render them.
 */
export const HttpUrl = z.url({ protocol: /^https?$/, error: "Must be an http:// or https:// URL" }).max(2048)

/** Escapes LIKE wildcards so a search term matches literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)
export const Timestamp = z.string().describe("ISO 8601 timestamp")

/** Offsets of 16 hours or more: RFC 3339's pattern allows them, PostgreSQL's timestamptz does not. */
const BEYOND_DATABASE_OFFSET = /[+-](?:1[6-9]|2\d):\d\d$/

/**
 * An instant a caller sends: ISO 8601 with an offset, limited to what PostgreSQL reads. The
 * pattern alone also lets through year 0000 and offsets up to ±23:59, which the database refuses
 * (a 500); no time zone's offset goes beyond ±14:00.
 */
export const Instant = z.iso
  .datetime({ offset: true })
  .refine(
    (value) => !value.startsWith("0000") && !BEYOND_DATABASE_OFFSET.test(value),
    "Must be an instant from year 0001 on, with a UTC offset within ±15:59"
  )

export const PageQuery = {
  page: z.coerce.number().int().min(1).default(1).describe("Page number, from 1"),
  per_page: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100")
}

/** A page of a named resource is named after it (`ClientPage`), so the OpenAPI document lists it once. */
export const paginated = <T extends z.ZodType>(item: T) => {
  const page = z.object({
    data: z.array(item),
    total: z.number().int().min(0).describe("Items across every page"),
    page: z.number().int().min(1).describe("This page's number, from 1"),
    pages: z.number().int().min(0).describe("Number of pages"),
    per_page: z.number().int().min(1).describe("Items per page")
  })
  const id = item.meta()?.id
  return id === undefined ? page : page.meta({ id: `${id}Page` })
}

export const pageOf = <T>(data: ReadonlyArray<T>, total: number, page: number, perPage: number) => ({
  data: [...data],
  total,
  page,
  pages: Math.ceil(total / perPage),
  per_page: perPage
})

/** Removes everything but digits: documents and phones arrive formatted in any way. */
export const digitsOnly = (value: string) => value.replace(/\D+/g, "")

/**
 * Outputs of procedures whose REST answer is not JSON (`meta.response`): the REST adapter turns
 * them into a 302, an HTML page or a file; tRPC, MCP and the CLI return them as they are.
 */
export const RedirectTo = z.object({ location: z.url().describe("Where the 302 sends the caller") })
export const HtmlPage = z.object({
  html: z.string().describe("The page, served as text/html"),
  expired: z.literal(true).optional().describe("The page says the link has expired: served with 410 Gone")
})
/** A redirect, or the page saying the link has expired (a tracked email link past its lifetime). */
export const RedirectOrPage = z.union([RedirectTo, HtmlPage])
export const FileBody = z.object({
  content_type: z.string().describe("The media type the file is served as"),
  body_base64: z.string().describe("The file's bytes, base64-encoded")
})
