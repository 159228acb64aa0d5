/** A UTF-16 surrogate without its pair; text from JSON input may carry one (`"\ud800"`). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * A value as the text of a `::jsonb` parameter. JSON.stringify writes a lone surrogate as a
 * `\udXXX` escape, which PostgreSQL's JSON parser refuses (a 500); it becomes U+FFFD instead, as the
 * driver already does with text parameters when it encodes them as UTF-8.
 */
export const jsonb = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === "string" ? v.replace(LONE_SURROGATE, "\uFFFD") : v))
