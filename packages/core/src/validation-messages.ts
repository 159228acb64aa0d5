import { z } from "zod"
import { closest } from "./closest.js"

/**
 * Validation messages for people, set once as zod's error map (docs/architecture.md, "Errors": every surface
 * shows core's messages). A message a schema sets itself still wins. Messages say why, not which
 * field: every surface shows them beside the field's `loc`.
 */

type RawIssue = z.core.$ZodRawIssue

/** Examples of the string formats the contracts use, in the shape the API wants. */
const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "a UUID such as 3f2a6c1e-8b4d-4e5f-9a7b-1c2d3e4f5a6b",
  guid: "a UUID such as 3f2a6c1e-8b4d-4e5f-9a7b-1c2d3e4f5a6b",
  email: "an email address such as ana@example.com",
  datetime: "a date-time such as 2026-01-31T12:00:00Z",
  date: "a date such as 2026-01-31",
  time: "a time such as 14:30:00",
  url: "a URL such as https://example.com",
  e164: "a phone number such as +5511987654321"
}

/** The type names zod expects, as people say them. */
const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  null: "null",
  date: "a date"
}

/** The messages of a wrong type, so `withReceived` can say what was sent instead. */
const typeMessage = (expected: string) => `Must be ${TYPE_NAMES[expected] ?? expected}`

const showValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

const oneOf = (values: ReadonlyArray<unknown>): string => {
  if (values.length === 1) return `Must be ${showValue(values[0])}`
  const sorted = [...values]
  if (sorted.length === 2 && sorted.includes(true) && sorted.includes(false)) return "Must be true or false"
  return `Must be one of: ${sorted.map(showValue).join(", ")}`
}

const plural = (n: number | bigint, unit: string) => `${n} ${unit}${n === 1 || n === 1n ? "" : "s"}`

const tooSmall = (issue: Extract<RawIssue, { code: "too_small" }>): string => {
  const { minimum, inclusive, exact, origin } = issue
  if (origin === "string") {
    if (exact) return `Must be exactly ${plural(minimum, "character")}`
    return minimum === 1 ? "Must not be empty" : `Must be at least ${plural(minimum, "character")}`
  }
  if (origin === "array" || origin === "set") {
    if (exact) return `Must have exactly ${plural(minimum, "item")}`
    return `Must have at least ${plural(minimum, "item")}`
  }
  return inclusive === false ? `Must be greater than ${minimum}` : `Must be at least ${minimum}`
}

const tooBig = (issue: Extract<RawIssue, { code: "too_big" }>): string => {
  const { maximum, inclusive, exact, origin } = issue
  if (origin === "string") {
    return exact ? `Must be exactly ${plural(maximum, "character")}` : `Must be at most ${plural(maximum, "character")}`
  }
  if (origin === "array" || origin === "set") {
    return exact ? `Must have exactly ${plural(maximum, "item")}` : `Must have at most ${plural(maximum, "item")}`
  }
  return inclusive === false ? `Must be less than ${maximum}` : `Must be at most ${maximum}`
}

const invalidFormat = (issue: Extract<RawIssue, { code: "invalid_format" }>): string => {
  const example = FORMAT_EXAMPLES[issue.format]
  if (example !== undefined) return `Must be ${example}`
  switch (issue.format) {
    case "starts_with":
      return `Must start with ${JSON.stringify(issue["prefix"])}`
    case "ends_with":
      return `Must end with ${JSON.stringify(issue["suffix"])}`
    case "includes":
      return `Must contain ${JSON.stringify(issue["includes"])}`
    case "regex":
      return `Must match the pattern ${issue.pattern}`
    default:
      return `Must be a valid ${issue.format}`
  }
}

/** The fields an object schema takes, to name them when a key is not one of them. */
const fieldsOf = (schema: unknown): ReadonlyArray<string> =>
  schema instanceof z.ZodObject ? Object.keys(schema.shape as Record<string, unknown>) : []

const unknownKeys = (issue: Extract<RawIssue, { code: "unrecognized_keys" }>): string => {
  const fields = fieldsOf(issue.inst)
  const [only] = issue.keys
  const suggestion = issue.keys.length === 1 && only !== undefined ? closest(only, fields) : undefined
  if (suggestion !== undefined) return `Unknown field; did you mean ${suggestion}?`
  return fields.length > 0 ? `Unknown field; the fields are: ${fields.join(", ")}` : "Unknown field"
}

/**
 * A union whose every branch wanted a literal or a type at the union's own place ("true" or false,
 * a string or a list) says so in one message; otherwise the branch that got furthest speaks.
 */
const invalidUnion = (issue: Extract<RawIssue, { code: "invalid_union" }>): string => {
  const branches = issue.errors
  const expected: unknown[] = []
  const types: string[] = []
  for (const branch of branches) {
    const [first] = branch
    if (branch.length !== 1 || first === undefined || first.path.length > 0) {
      const best = branches.toSorted((a, b) => a.length - b.length)[0]?.[0]
      return best?.message ?? "Does not match any accepted form"
    }
    if (first.code === "invalid_value") expected.push(...first.values)
    else if (first.code === "invalid_type") types.push(TYPE_NAMES[first.expected] ?? first.expected)
    else return first.message
  }
  if (types.length === 0) return oneOf(expected)
  return `Must be ${[...types, ...expected.map(showValue)].join(" or ")}`
}

/** zod's error map: undefined leaves a message to zod (only for codes it has no better words for). */
export const humanMessage = (issue: RawIssue): string | undefined => {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "Required" : typeMessage(issue.expected)
    case "too_small":
      return tooSmall(issue)
    case "too_big":
      return tooBig(issue)
    case "invalid_format":
      return invalidFormat(issue)
    case "invalid_value":
      return oneOf(issue.values)
    case "not_multiple_of":
      return `Must be a multiple of ${issue.divisor}`
    case "unrecognized_keys":
      return unknownKeys(issue)
    case "invalid_union":
      return invalidUnion(issue)
    case "invalid_key":
      return "Has a key that is not allowed"
    case "invalid_element":
      return "Has an element that is not allowed"
    case "custom":
      return "Is not valid"
    default:
      return undefined
  }
}

/**
 * What was sent instead of the expected type, for a person to see the mistake: appended by the
 * 422's builder from the raw input, as zod has by then replaced a query string's "abc" by NaN.
 */
export const withReceived = (message: string, issue: z.core.$ZodIssue, received: unknown): string => {
  if (issue.code !== "invalid_type" || received === undefined || message !== typeMessage(issue.expected)) {
    return message
  }
  if (typeof received === "string") {
    return `${message}, got ${JSON.stringify(received.length > 40 ? `${received.slice(0, 40)}…` : received)}`
  }
  // Named, never serialized: a hostile value may be nested thousands deep.
  if (Array.isArray(received)) return `${message}, got a list`
  if (typeof received === "object" && received !== null) return `${message}, got an object`
  return `${message}, got ${String(received)}`
}

z.config({ customError: humanMessage })
