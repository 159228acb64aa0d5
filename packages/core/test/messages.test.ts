import { describe, expect, it } from "vitest"
import { z } from "zod"
import { jsonSyntaxError, malformedJsonMessage } from "../src/json-syntax.js"
import { withReceived } from "../src/validation-messages.js"

const messageOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input)
  if (result.success) throw new Error("expected a failure")
  const [issue] = result.error.issues
  return withReceived(issue!.message, issue!, input)
}

describe("validation messages for people", () => {
  it("say why in plain words, whatever the kind of field", () => {
    expect(messageOf(z.string(), undefined)).toBe("Required")
    expect(messageOf(z.string(), 5)).toBe("Must be a string, got 5")
    expect(messageOf(z.number(), "abc")).toBe('Must be a number, got "abc"')
    expect(messageOf(z.coerce.number(), "abc")).toBe('Must be a number, got "abc"')
    expect(messageOf(z.number().int(), 1.5)).toBe("Must be a whole number, got 1.5")
    expect(messageOf(z.number(), [1, 2])).toBe("Must be a number, got a list")
    expect(messageOf(z.string().max(120), "x".repeat(121))).toBe("Must be at most 120 characters")
    expect(messageOf(z.string().min(1), "")).toBe("Must not be empty")
    expect(messageOf(z.string().min(3), "ab")).toBe("Must be at least 3 characters")
    expect(messageOf(z.number().min(1), 0)).toBe("Must be at least 1")
    expect(messageOf(z.number().positive(), 0)).toBe("Must be greater than 0")
    expect(messageOf(z.array(z.string()).min(1), [])).toBe("Must have at least 1 item")
    expect(messageOf(z.enum(["day", "week", "month"]), "year")).toBe("Must be one of: day, week, month")
    expect(messageOf(z.union([z.literal(true), z.literal(false)]), "yes")).toBe("Must be true or false")
    expect(messageOf(z.uuid(), "x")).toBe("Must be a UUID such as 3f2a6c1e-8b4d-4e5f-9a7b-1c2d3e4f5a6b")
    expect(messageOf(z.iso.datetime(), "2026")).toBe("Must be a date-time such as 2026-01-31T12:00:00Z")
    expect(messageOf(z.email(), "ana")).toBe("Must be an email address such as ana@example.com")
    expect(messageOf(z.number().multipleOf(5), 7)).toBe("Must be a multiple of 5")
    expect(messageOf(z.strictObject({ email: z.string() }), { emial: "a" })).toBe("Required")
    const unknown = z.strictObject({ email: z.string().optional(), nome: z.string().optional() })
    expect(messageOf(unknown, { emial: "a" })).toBe("Unknown field; did you mean email?")
    expect(messageOf(unknown, { zzzzzz: 1 })).toBe("Unknown field; the fields are: email, nome")
  })

  it("leave a message the schema sets itself", () => {
    expect(messageOf(z.string().regex(/^#/, "Use a hex color like #1a2b3c"), "red")).toBe(
      "Use a hex color like #1a2b3c"
    )
  })
})

describe("malformed JSON", () => {
  it("says the line, column and position where it broke, what was expected and what was found", () => {
    expect(malformedJsonMessage('{"a": 1,}')).toBe(
      "Malformed JSON at line 1, column 9 (position 8): expected a property name in double quotes, found '}'"
    )
    expect(malformedJsonMessage('{\n  "a" 1\n}')).toBe(
      "Malformed JSON at line 2, column 7 (position 8): expected ':' after the property name, found '1'"
    )
    expect(malformedJsonMessage('{"a": tru}')).toMatch(/expected a value, found "tru"$/)
    expect(malformedJsonMessage("[1, 2")).toMatch(/expected ',' or '\]', found the end of the body$/)
    expect(malformedJsonMessage('{"a": 1} x')).toMatch(/column 10 .*expected the end of the body, found 'x'$/)
    expect(malformedJsonMessage('"a\\qb"')).toMatch(/expected an escape such as/)
  })

  it("finds nothing wrong in JSON, and copes with a body nested far deeper than any stack", () => {
    expect(jsonSyntaxError('[1, -2.5e3, "\\u00e9", {"a": [true, false, null]}, {}]')).toBeUndefined()
    expect(jsonSyntaxError("[".repeat(200_000))).toMatchObject({ position: 200_000, found: "the end of the body" })
  })
})
