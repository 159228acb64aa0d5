import fc from "fast-check"

/** The part of JSON Schema (OpenAPI 3.1 and MCP tool schemas) the generators read. */
export interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly format?: string
  readonly pattern?: string
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
  readonly minItems?: number
  readonly maxItems?: number
}

/** One input of an operation: where it travels and what its schema says. */
export interface Field {
  readonly name: string
  readonly in: "path" | "query" | "header" | "body"
  readonly schema: JsonSchema
  readonly required: boolean
}

/** Real values to mix in, by field name (`client_id` -> seeded client ids), so runs get past lookups. */
export type Seeds = Readonly<Record<string, ReadonlyArray<unknown>>>

export interface FuzzOptions {
  readonly seeds: Seeds
  /** Generators by field name that the caller knows better than a schema (a store's receipt QR codes). */
  readonly hints?: Readonly<Record<string, fc.Arbitrary<unknown>>>
  /**
   * Leaves out the inputs of bugs being fixed on other branches (NUL bytes, an empty timeline
   * `category`, time zones PostgreSQL does not know), so the rest can be checked meanwhile.
   */
  readonly skipKnownBugs: boolean
}

/** A number literal JSON.stringify cannot write (1e400, -0, 20 digits), sent as is. */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod]() {
    return `raw(${this.text.length > 60 ? `${this.text.slice(0, 30)}…(${this.text.length} chars)` : this.text})`
  }
}

/** A long string, kept short in counterexamples: `"ab".repeat(5000)` rather than 10k characters. */
export class Repeated {
  constructor(
    readonly unit: string,
    readonly count: number
  ) {}
  toJSON() {
    return this.unit.repeat(this.count)
  }
  toString() {
    return this.unit.repeat(this.count)
  }
  [fc.toStringMethod]() {
    return `${JSON.stringify(this.unit)}.repeat(${this.count})`
  }
}

/** What in a response body gives internals away: stack frames, paths, driver and database errors. */
const LEAKS: ReadonlyArray<RegExp> = [
  /\bat \S[^\n"]{0,200}?[/\\][\w.@-]+\.[cm]?[jt]sx?:\d+/,
  /node_modules/,
  /\/work\//,
  /SqlError/,
  /postgres/i,
  // Not inside a word: a random API key (`fid_…1pg_…`) may contain the letters.
  /(?<![\w-])pg_/,
  /relation "/,
  /syntax error at/,
  /ECONN/,
  /\b(?:Type|Range|Reference|Syntax)Error\b/,
  /Cannot read properties/
]

export const leakIn = (text: string): string | undefined => LEAKS.find((pattern) => pattern.test(text))?.source

/** MCP tool results say "Internal server error" where REST answers 500. */
const INTERNAL = /internal/i

export const saysInternal = (text: string) => INTERNAL.test(text)

/**
 * Generated text never contains a leak marker itself, so a marker in a response (an echoed 422
 * input, a stored name listed later) always comes from the server.
 */
const clean = (text: string) => leakIn(text) === undefined && !saysInternal(text)

const NUL = "\u0000"

const ODD_STRINGS: ReadonlyArray<string> = [
  "",
  " ",
  "\t\n",
  NUL,
  `a${NUL}b`,
  "%00",
  "a%00.png",
  "\uD800",
  "x\uDFFFy",
  "\uDBFF\uDBFF",
  "\u202Egnp.exe",
  "\u200B",
  "\uFEFFabc",
  "\u2028\u2029",
  "👩‍👩‍👧‍👦",
  "🏳️‍🌈",
  "e\u0301\u0301\u0301",
  "ﷺ",
  "ａｄｍｉｎ",
  "' OR '1'='1",
  "'; DROP TABLE clients; --",
  "1; SELECT 1/0 --",
  "\\",
  "\\'",
  '"',
  "%",
  "_",
  "%_%",
  "$1",
  "?",
  "{}",
  '{"a":',
  "[]",
  "null",
  "true",
  "0",
  "-1",
  "../../../../etc/passwd",
  "..%2F..%2F..%2Fetc%2Fpasswd",
  "..\\..\\windows\\win.ini",
  "/",
  "%2e%2e%2f",
  "a\r\nX-Injected: 1",
  "\r\n\r\n",
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "javascript:alert(1)",
  "http://169.254.169.254/latest/meta-data/",
  "file:///etc/passwd",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "{00000000-0000-4000-8000-000000000000}",
  "00000000000040008000000000000000",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "275760-09-13T00:00:00.000Z",
  "2024-02-30T00:00:00Z",
  "1970-01-01T00:00:00+23:59",
  "-000001-01-01T00:00:00Z"
]

const NAN_LIKE: ReadonlyArray<string> = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e400",
  "-1e400",
  "1e-400",
  "0x1F",
  "0b101",
  "1_000",
  " 42 ",
  "42abc",
  "-0",
  "+1",
  "1.",
  ".5",
  "٣",
  "１２",
  "9007199254740993",
  "99999999999999999999999"
]

const HUGE_NUMBERS: ReadonlyArray<unknown> = [
  0,
  -1,
  -0,
  0.5,
  -0.001,
  1.0000001,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  new RawJson("1e400"),
  new RawJson("-1e400"),
  new RawJson("123456789012345678901234567890"),
  new RawJson("1.0"),
  new RawJson("-0.0"),
  new RawJson("1E2")
]

/** Canonical zones as Intl lists them, a sample. */
const TIME_ZONES: ReadonlyArray<string> = Intl.supportedValuesOf("timeZone").filter((_, i) => i % 7 === 0)

/**
 * Names Intl accepts without listing them: backward-compatible links and zones removed from the
 * tz database. Whatever accepts a zone must also be able to compute with it (in SQL too).
 */
const LEGACY_TIME_ZONES: ReadonlyArray<string> = [
  "US/Pacific-New",
  "America/Buenos_Aires",
  "Asia/Calcutta",
  "Asia/Rangoon",
  "Europe/Kiev",
  "America/Godthab",
  "Pacific/Enderbury",
  "EST5EDT",
  "GMT0",
  "Etc/GMT+12",
  "Etc/GMT-14",
  "Zulu",
  "ROC",
  "Brazil/East",
  "Canada/East-Saskatchewan"
]

/** Zones PostgreSQL does not know, a known bug being fixed elsewhere. */
const KNOWN_BAD_TIME_ZONES = new Set(["US/Pacific-New", "Canada/East-Saskatchewan"])

const digitsArb = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n })

const checkDigit = (digits: ReadonlyArray<number>, weights: ReadonlyArray<number>) => {
  const rest = digits.reduce((sum, d, i) => sum + d * weights[i]!, 0) % 11
  return rest < 2 ? 0 : 11 - rest
}

/** A CPF with valid check digits, bare or punctuated. */
const cpfArb = digitsArb(9).chain((base) => {
  const d1 = checkDigit(base, [10, 9, 8, 7, 6, 5, 4, 3, 2])
  const d2 = checkDigit([...base, d1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
  const s = [...base, d1, d2].join("")
  return fc.constantFrom(s, `${s.slice(0, 3)}.${s.slice(3, 6)}.${s.slice(6, 9)}-${s.slice(9)}`)
})

/** A CNPJ with valid check digits, bare or punctuated. */
const cnpjArb = digitsArb(12).chain((base) => {
  const d1 = checkDigit(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  const d2 = checkDigit([...base, d1], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  const s = [...base, d1, d2].join("")
  return fc.constantFrom(s, `${s.slice(0, 2)}.${s.slice(2, 5)}.${s.slice(5, 8)}/${s.slice(8, 12)}-${s.slice(12)}`)
})

/** Plausible values for fields whose schema is a bare string. */
const byName = (options: FuzzOptions): Readonly<Record<string, fc.Arbitrary<unknown>>> => ({
  timezone: fc.oneof(
    fc.constantFrom(...TIME_ZONES),
    fc.constantFrom(...LEGACY_TIME_ZONES.filter((zone) => !(options.skipKnownBugs && KNOWN_BAD_TIME_ZONES.has(zone))))
  ),
  cpf: cpfArb,
  cnpj: cnpjArb,
  telefone: fc.constantFrom("+55 11 91234-5678", "(21) 3456-7890", "11912345678", "5511912345678", "+1 202 555 0100"),
  source: fc.constantFrom("purchase", "referral", "survey", "interaction", "reward", "manual"),
  uid: fc.stringMatching(/^[A-Z2-9]{8}$/)
})

const INT32 = 2 ** 31 - 1

const intIn = (min: number, max: number): fc.Arbitrary<number> =>
  min >= -INT32 && max <= INT32
    ? fc.integer({ min, max })
    : fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number)

const typesOf = (schema: JsonSchema): ReadonlyArray<string> =>
  schema.type === undefined ? [] : typeof schema.type === "string" ? [schema.type] : schema.type

const shortText = (min: number, max: number) =>
  fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 40)) }).filter(clean)

const dateTimeArb = fc
  .integer({ min: -400 * 24, max: 400 * 24 })
  .map((hours) => new Date(Date.now() + hours * 3_600_000).toISOString())

const validString = (schema: JsonSchema, name: string, options: FuzzOptions): fc.Arbitrary<unknown> => {
  const min = schema.minLength ?? 0
  const max = schema.maxLength ?? 200
  const generic = ((): fc.Arbitrary<unknown> => {
    if (schema.format === "uuid") return fc.oneof(fc.constantFrom(...allIds(options.seeds)), fc.uuid())
    if (schema.format === "date-time") return dateTimeArb
    if (schema.format === "email")
      return fc.oneof(
        fc.stringMatching(/^[a-z]{1,12}$/).map((local) => `${local}@example.com`),
        fc.emailAddress().filter((email) => email.length <= max && clean(email))
      )
    if (schema.format === "uri")
      return fc.oneof(
        fc.constantFrom(
          "https://example.com/image.png",
          "http://localhost:3000/a?b=c#d",
          "https://xn--bcher-kva.example/ä"
        ),
        fc.webUrl().filter((url) => url.length <= max && clean(url))
      )
    const hint = options.hints?.[name] ?? byName(options)[name]
    if (hint !== undefined) return hint
    if (schema.pattern !== undefined)
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max && clean(s))
    return fc.oneof(
      { weight: 3, arbitrary: shortText(min, max) },
      { weight: 2, arbitrary: withFragment(shortText(Math.max(min, 1), max - 2), options) },
      { weight: 1, arbitrary: fc.constant(new Repeated("x", Math.max(max, 1))) }
    )
  })()
  const seeded = options.seeds[name]
  return seeded === undefined || seeded.length === 0
    ? generic
    : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...seeded) }, { weight: 1, arbitrary: generic })
}

const allIds = (seeds: Seeds): ReadonlyArray<unknown> => {
  const ids = Object.entries(seeds)
    .filter(([name]) => name.endsWith("_id"))
    .flatMap(([, values]) => values)
  return ids.length > 0 ? ids : ["00000000-0000-4000-8000-000000000000"]
}

const validNumber = (schema: JsonSchema, integer: boolean): fc.Arbitrary<number> => {
  const step = integer ? 1 : (schema.multipleOf ?? 0.01)
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : -1_000_000)
  const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : 1_000_000)
  const scale = Math.round(1 / step)
  const [min, max] = [Math.ceil(low * scale), Math.floor(high * scale)]
  // Small values are the ones that pass business rules (a balance, a stock); the bounds find off-by-ones;
  // values near the top are the ones whose sums overflow (a quantity times a price, credits on a balance).
  return fc
    .oneof(
      { weight: 3, arbitrary: intIn(min, Math.min(max, min + 20)) },
      { weight: 2, arbitrary: intIn(min, Math.min(max, min + 1000)) },
      { weight: 1, arbitrary: intIn(min, max) },
      { weight: 1, arbitrary: intIn(Math.max(min, max - 20), max) },
      { weight: 1, arbitrary: fc.constantFrom(min, max) }
    )
    .map((n) => n / scale)
}

/** A value the schema accepts, or close to it: the part of a run that reaches the business rules. */
export const validArb = (schema: JsonSchema, name: string, options: FuzzOptions): fc.Arbitrary<unknown> => {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum)
  const branches = schema.anyOf ?? schema.oneOf
  if (branches !== undefined) return fc.oneof(...branches.map((branch) => validArb(branch, name, options)))
  const types = typesOf(schema)
  if (types.length > 1) return fc.oneof(...types.map((type) => validArb({ ...schema, type }, name, options)))
  switch (types[0]) {
    case "string":
      return validString(schema, name, options)
    case "integer":
      return validNumber(schema, true)
    case "number":
      return validNumber(schema, false)
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array": {
      const minLength = Math.max(schema.minItems ?? 0, options.skipKnownBugs && name === "category" ? 1 : 0)
      const items = fc.array(validArb(schema.items ?? {}, name, options), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3))
      })
      // An empty list is the edge case a filter most often gets wrong.
      return minLength === 0
        ? fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: items })
        : items
    }
    case "object":
      return validObject(schema, options)
    default:
      return junkArb(options)
  }
}

const validObject = (schema: JsonSchema, options: FuzzOptions) => {
  const properties = schema.properties ?? {}
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, validArb(property, name, options)])
  )
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) })
}

const withoutNul = (options: FuzzOptions) => (text: string) => !(options.skipKnownBugs && text.includes(NUL))

const oddStringArb = (options: FuzzOptions) => fc.constantFrom(...ODD_STRINGS.filter(withoutNul(options)))

/** Characters that break naive code when they sit inside otherwise ordinary text. */
const FRAGMENTS: ReadonlyArray<string> = [
  NUL,
  "\uD800",
  "\u202E",
  "\u200B",
  "😀",
  "'",
  '"',
  "\\",
  "%",
  "_",
  "\r\n",
  "%00",
  "${",
  "</",
  "\u0085"
]

/** Ordinary text with an odd fragment inside: it passes a plain string schema and reaches the database. */
const withFragment = (text: fc.Arbitrary<string>, options: FuzzOptions) =>
  fc.tuple(text, fc.constantFrom(...FRAGMENTS.filter(withoutNul(options))), fc.nat()).map(([base, fragment, at]) => {
    const i = at % (base.length + 1)
    return `${base.slice(0, i)}${fragment}${base.slice(i)}`
  })

/** Any code unit, lone surrogates and control characters included. */
const binaryStringArb = (options: FuzzOptions) =>
  fc.string({ unit: "binary", maxLength: 40 }).filter((s) => clean(s) && withoutNul(options)(s))

const longStringArb = (options: FuzzOptions) =>
  fc
    .tuple(
      fc.constantFrom("A", "é", "😀", "\u200B", "'", "\\", "%", `${NUL}x`, "\uD800"),
      fc.integer({ min: 10_000, max: 70_000 })
    )
    .filter(([unit]) => withoutNul(options)(unit))
    .map(([unit, count]) => new Repeated(unit, Math.ceil(count / unit.length)))

/** Arrays or objects nested far deeper than any input. */
const deepArb = fc
  .tuple(fc.constantFrom("[", "{"), fc.integer({ min: 20, max: 5_000 }))
  .map(([open, depth]) =>
    open === "["
      ? new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`)
      : new RawJson(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)
  )

const junkArb = (options: FuzzOptions): fc.Arbitrary<unknown> =>
  fc.jsonValue({ maxDepth: 3 }).filter((value) => {
    const text = JSON.stringify(value) ?? ""
    return clean(text) && withoutNul(options)(text) && !text.includes("\\u0000")
  })

const acceptsString = (schema: JsonSchema): boolean =>
  typesOf(schema).includes("string") || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(acceptsString)

/** Values of every JSON type but the expected one, and then some: what a careless or hostile caller sends. */
export const hostileArb = (schema: JsonSchema, name: string, options: FuzzOptions): fc.Arbitrary<unknown> => {
  const types = typesOf(schema)
  const maxLength = schema.maxLength
  const boundaries: Array<unknown> = []
  if (maxLength !== undefined) boundaries.push(new Repeated("y", maxLength + 1))
  if (types.includes("integer")) boundaries.push(0.5, 1.5, -1, (schema.maximum ?? 0) + 1, (schema.minimum ?? 0) - 1)
  if (schema.enum !== undefined)
    boundaries.push(...schema.enum.map((value) => (typeof value === "string" ? value.toUpperCase() : value)))
  // An empty `category` list on the timeline is a known bug being fixed elsewhere.
  const emptyList = options.skipKnownBugs && name === "category" ? [] : [[]]
  // Odd text that is still a string gets past the type check and into the business code and SQL.
  const text = acceptsString(schema) ? 3 : 1
  return fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(
        null,
        true,
        false,
        {},
        ...emptyList,
        ...(boundaries.length > 0 ? boundaries : [0])
      )
    },
    { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 2, arbitrary: fc.constantFrom(...NAN_LIKE) },
    { weight: 2 * text, arbitrary: oddStringArb(options) },
    { weight: 2 * text, arbitrary: withFragment(shortText(1, 20), options) },
    { weight: text, arbitrary: binaryStringArb(options) },
    { weight: 2, arbitrary: longStringArb(options) },
    { weight: 1, arbitrary: deepArb },
    { weight: 1, arbitrary: junkArb(options) },
    // The right value in the wrong shape: a list of it, or it wrapped in an object.
    { weight: 2, arbitrary: validArb(schema, name, options).map((value) => [value, value]) },
    { weight: 1, arbitrary: validArb(schema, name, options).map((value) => ({ value })) }
  )
}

/** Names an input must not accept, or must not be confused by. */
const EXTRA_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "",
  " ",
  "$where",
  "id",
  "empresa_id",
  "NOME",
  "a.b",
  "x".repeat(300)
]

/**
 * One generated request: field values (absent when missing), unknown extra properties, or a whole
 * hostile body; and the empresa settings in effect while it runs, when they are not the usual ones.
 */
export interface FuzzCase {
  readonly values: Readonly<Record<string, unknown>>
  readonly extra: Readonly<Record<string, unknown>>
  readonly whole?: unknown
  readonly settings?: Readonly<Record<string, unknown>>
}

const hostileWholeArb = (options: FuzzOptions): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom<unknown>(
      null,
      [],
      "",
      0,
      true,
      "{}",
      new RawJson("{"),
      new RawJson('{"a":1,"a":2}'),
      new RawJson("")
    ),
    deepArb,
    junkArb(options),
    longStringArb(options)
  )

/**
 * Mostly a valid request with one field spoiled (deep code, one bad input at a time), sometimes
 * all valid, all mixed, or the whole body replaced; optionally with unknown extra properties.
 */
export const caseArb = (fields: ReadonlyArray<Field>, options: FuzzOptions): fc.Arbitrary<FuzzCase> => {
  const validOf = (field: Field) => validArb(field.schema, field.name, options)
  const hostileOf = (field: Field) => hostileArb(field.schema, field.name, options)
  // Path parameters are always present; without one the request is a different route.
  const canOmit = (field: Field) => field.in !== "path"
  const valid = fc.record(Object.fromEntries(fields.map((field) => [field.name, validOf(field)])), {
    requiredKeys: fields.filter((field) => field.required || !canOmit(field)).map((field) => field.name)
  })
  const absent = fc.constant(undefined)
  const oneSpoiled =
    fields.length === 0
      ? valid
      : fc
          .tuple(valid, fc.constantFrom(...fields))
          .chain(([values, field]) =>
            (canOmit(field)
              ? fc.oneof({ weight: 5, arbitrary: hostileOf(field) }, { weight: 1, arbitrary: absent })
              : hostileOf(field)
            ).map((value) => ({ ...values, [field.name]: value }))
          )
  const mixed = fc.record(
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        fc.oneof(validOf(field), hostileOf(field), ...(canOmit(field) ? [absent] : []))
      ])
    )
  )
  const extra = fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc
        .uniqueArray(fc.tuple(fc.constantFrom(...EXTRA_NAMES), fc.oneof(oddStringArb(options), junkArb(options))), {
          minLength: 1,
          maxLength: 3,
          selector: ([name]) => name
        })
        // fromEntries defines "__proto__" as an own property, which JSON.stringify then sends.
        .map((entries) => Object.fromEntries(entries))
    }
  )
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ values: valid, extra }) },
    { weight: 4, arbitrary: fc.record({ values: oneSpoiled, extra }) },
    { weight: 1, arbitrary: fc.record({ values: mixed, extra }) },
    { weight: 1, arbitrary: fc.record({ values: valid, extra, whole: hostileWholeArb(options) }) }
  )
}

/** The fields present in a case, in the order of `fields`. */
export const presentValues = (fields: ReadonlyArray<Field>, c: FuzzCase, where: (field: Field) => boolean) =>
  Object.fromEntries(
    fields
      .filter((field) => where(field) && c.values[field.name] !== undefined)
      .map((field) => [field.name, c.values[field.name]])
  )

/** JSON with RawJson values written verbatim. */
export const toJson = (value: unknown): string => {
  const raws: Array<string> = []
  const text = JSON.stringify(value, (_, v: unknown) => {
    if (!(v instanceof RawJson)) return v
    raws.push(v.text)
    return `@@fuzz-raw-${raws.length - 1}@@`
  })
  return (text ?? "").replace(/"@@fuzz-raw-(\d+)@@"/g, (_, i: string) => raws[Number(i)]!)
}

/** A value as text in a URL or header: strings as they are, anything else as its JSON. */
export const toText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : value instanceof Repeated
      ? value.toString()
      : value instanceof RawJson
        ? value.text
        : toJson(value)

/** Percent-encoded UTF-8; unlike encodeURIComponent, a lone surrogate becomes U+FFFD instead of throwing. */
export const percentEncode = (text: string): string =>
  Array.from(new TextEncoder().encode(text), (byte) =>
    /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  ).join("")

/** fetch refuses header values outside Latin-1 or with CR, LF or NUL; those travel percent-encoded. */
export const toHeader = (value: unknown): string => {
  const text = toText(value)
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : percentEncode(text)
}
