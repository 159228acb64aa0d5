import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import {
  caseArb,
  leakIn,
  percentEncode,
  presentValues,
  saysInternal,
  toHeader,
  toJson,
  toText,
  validArb,
  type Field,
  type FuzzCase,
  type FuzzOptions,
  type JsonSchema
} from "./support/fuzz.js"
import { startSmtpSink } from "../packages/core/test/smtp-sink.js"
import { memberOf } from "./support/accounts.js"
import { call, createClient, createTenant, startServer, type ApiResponse, type TestServer } from "./support/index.js"
import { keyOf, newCnpj, nfceFixtures, offlineQr, onlineQr, proveCnpj } from "./support/nfce.js"

/**
 * Property-based fuzzing of every operation the server publishes: each REST operation of both
 * OpenAPI documents (and the same procedure over tRPC) and each MCP tool, with inputs derived from
 * their schemas. No answer may be a 5xx, slower than the bound, or carry internals.
 *
 * CI runs it small with a fixed seed; `npm run fuzz` runs it long with a fresh seed. Environment:
 * FUZZ_RUNS (runs per operation), FUZZ_BUDGET_MS (the CI run's time for all operations), FUZZ_SEED,
 * FUZZ_TIMEOUT_MS (slowest acceptable answer), FUZZ_ONLY (operations whose label contains it),
 * FUZZ_PATH (with FUZZ_SEED and FUZZ_ONLY: replay one counterexample), FUZZ_VERBOSE=1 (status counts
 * per operation), FUZZ_SKIP_KNOWN_BUGS=1.
 */
const env = process.env
const LONG = env["FUZZ_LONG"] === "1"
const RUNS = Number(env["FUZZ_RUNS"] ?? (LONG ? 300 : 25))
const SEED = Number(env["FUZZ_SEED"] ?? (LONG ? Date.now() % 2 ** 31 : 20_261_123))
// Generous by default: the bound is there to catch a pathological input (a runaway regex, an unbounded
// query), not to time requests on a machine that CI or other suites keep busy.
const TIMEOUT_MS = Number(env["FUZZ_TIMEOUT_MS"] ?? 10_000)
const ONLY = env["FUZZ_ONLY"]
const REPLAY_PATH = env["FUZZ_PATH"]
const VERBOSE = LONG || env["FUZZ_VERBOSE"] === "1"
// Bugs being fixed on other branches; this switch lets the rest be checked meanwhile. Never set in CI.
const SKIP_KNOWN_BUGS = env["FUZZ_SKIP_KNOWN_BUGS"] === "1"

/** A hung request is reported as slow instead of stalling the file. */
const ABORT_MS = 2 * TIMEOUT_MS
/**
 * In CI, the file's operations share FUZZ_BUDGET_MS (default 4 minutes): each stops (as passed, or with
 * the failure shrunk so far) after its share, at most 20 s, so a slow machine cannot stall the suite.
 * Each operation's runs still start from its own seed, so the cases it reaches are the same on every run.
 */
const SUITE_BUDGET_MS = Number(env["FUZZ_BUDGET_MS"] ?? 240_000)
const operationBudget = (operations: number) =>
  LONG || env["FUZZ_RUNS"] !== undefined ? undefined : Math.min(20_000, Math.floor(SUITE_BUDGET_MS / operations))

const PUBLIC = "/api/v1/public"
const INTERNAL = "/api/v1/internal"
const END_USER = "/api/v1"
const MCP_ACCEPT = { accept: "application/json, text/event-stream" }

interface Exchange {
  readonly request: string
  readonly response: ApiResponse
  readonly ms: number
}

interface Target {
  readonly label: string
  readonly fields: ReadonlyArray<Field>
  /** Acts on the fuzzed empresa with its settings (not on empresas named in its input). */
  readonly company: boolean
  send(c: FuzzCase): Promise<Exchange>
  /** What besides a 5xx, slowness or a leak counts as a failure on this surface. */
  readonly extraProblem?: (response: ApiResponse) => string | undefined
  /** How an answer is counted in the statistics; the HTTP status unless the surface says more. */
  readonly outcome?: (response: ApiResponse) => string
}

/** The state's pages the receipts' tasks consult: written by `seedWorld`. */
const receipts = nfceFixtures()
// The member's verification email goes here; the rest of the email is read by nobody.
const sink = await startSmtpSink()
const server: TestServer = await startServer({
  // The per-key, per-user and per-address limits would turn most of the runs into 429s.
  env: {
    FIDELIS_RATE_LIMIT_PER_MINUTE: "10000000",
    FIDELIS_ADMIN_RATE_LIMIT_PER_MINUTE: "10000000",
    FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "10000000",
    FIDELIS_EMAIL_RATE_LIMIT_PER_MINUTE: "10000000",
    FIDELIS_USER_RATE_LIMIT_PER_MINUTE: "10000000",
    FIDELIS_PASSWORD_COST: "10",
    FIDELIS_SMTP_URL: sink.url,
    ...receipts.env
  }
})
afterAll(async () => {
  await server.stop()
  await sink.close()
})

const created = async <T = any>(key: string, path: string, body: unknown, headers?: Record<string, string>) => {
  const res = await call(server, path, { ...(key === "" ? {} : { key }), body, ...(headers && { headers }) })
  if (res.status >= 300) throw new Error(`seed POST ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as T
}

/** MAX_POINTS: the most points a price, a credit or a balance holds. */
const TOP_POINTS = 1_000_000_000

/**
 * Receipt totals at the edges: a centavo, the default ceiling (R$ 10,000) and the highest a store
 * may set (R$ 10,000,000) on either side, a total worth more than 10^9 points at 1000 points a real,
 * and the 13 digits a QR code can state.
 */
const EDGE_TOTALS = [
  "0.01",
  "9999.99",
  "10000.00",
  "10000.01",
  "1000000.01",
  "9999999.99",
  "10000000.00",
  "10000000.01",
  "9999999999999.99"
]

/**
 * Valid receipts of the fuzzed store at the edge totals: offline QR codes stating them (a new
 * invoice number each), and online ones whose state page (a fixture) states them.
 */
const receiptArb = (cnpj: string) => {
  const online = EDGE_TOTALS.map(() => keyOf({ cnpj }))
  receipts.set(
    Object.fromEntries(
      online.map((key, i) => [
        key,
        { status: "ok", total_cents: Number(EDGE_TOTALS[i]!.replace(".", "")), items_count: 1, issued_at: null }
      ])
    )
  )
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...EDGE_TOTALS), fc.integer({ min: 1, max: 999_999_999 }))
      .map(([total, number]) => offlineQr(total, keyOf({ cnpj, tpEmis: "9", number }))),
    fc.constantFrom(...online.map((key) => onlineQr(key)))
  )
}

/**
 * One of every record the operations refer to, so runs mixing in their ids get past the lookups.
 * The admin operations mostly act on the fuzzed empresa itself (restored after each run); a second
 * empresa holds a foreign client.
 */
const seedWorld = async () => {
  const tenant = await createTenant(server)
  const sandbox = await createTenant(server)
  const post = <T = any>(path: string, body: unknown) => created<T>(tenant.key, `${PUBLIC}${path}`, body)
  const ana = await createClient(server, tenant, { nome: "Ana Souza", email: "ana@example.com" })
  const bruno = await createClient(server, tenant, { nome: "Bruno Lima" })
  const foreign = await createClient(server, sandbox, { nome: "Carla Dias" })
  const product = await post("/products", { name: "Caneca", points_cost: 100, stock: 50, category: "Brindes" })
  const reward = await post("/rewards", { product_id: product.id })
  const program = await post("/loyalty-cards/programs", {
    name: "Cartão Café",
    stamps_required: 5,
    reward_description: "Um café"
  })
  const cards = [
    await post("/loyalty-cards", { client_id: ana.id, program_id: program.id }),
    await post("/loyalty-cards", { client_id: bruno.id, program_id: program.id })
  ]
  const campaign = await post("/referrals/campaigns", {
    name: "Indique um amigo",
    referrer_bonus: 10,
    referred_bonus: 5
  })
  const quest = await post("/quests", {
    name: "Pesquisa",
    research: { fields: [{ id: "nota", type: "rating", label: "Sua nota?", min: 1, max: 5 }] }
  })
  await post("/points/credit", { client_id: ana.id, points: 1_000_000 })
  // Prices at the bound, whose sums overflowed: three in a cart, two in a redemption.
  const jewel = await post("/products", { name: "Joia", points_cost: TOP_POINTS })
  const jewelReward = await post("/rewards", { product_id: jewel.id })
  const cnpj = newCnpj()
  await post("/nfce/cnpjs", { cnpj })
  // Receipts credit only once an admin proves the store's claim to the CNPJ (CNPJ claims).
  await proveCnpj(server, tenant, cnpj)
  const qrCodes = receiptArb(cnpj)
  // A verified user, client of the empresa, for the end-user operations where amounts add up.
  const member = await memberOf(server, sink, tenant, 1_000_000)
  const asMember = <T = any>(path: string, body: unknown) => created<T>("", `${END_USER}${path}`, body, member.auth)
  const cart = await asMember("/cart/add", { store_id: tenant.empresa.id, product_uid: product.id, quantity: 1 })
  const redeemed = await asMember(`/rewards/${reward.id}/redeem`, { quantity: 1 })
  const scanned = await asMember("/nfce/decode-qr", { qr_code: offlineQr("0.01", keyOf({ cnpj, tpEmis: "9" })) })
  const coupons = [
    await post("/coupons/generate", { client_id: ana.id, points: 10 }),
    await post("/coupons/generate", { client_id: ana.id, product_id: product.id })
  ]
  // The public survey routes take no key; a response of the served survey for the contact step.
  const response = await created("", `${PUBLIC}/quests/${tenant.empresa.id_name}/${quest.id}/responses`, {
    response: { nota: 4 }
  })
  const spareKey = await created(server.adminKey, `${INTERNAL}/empresas/${sandbox.empresa.id}/api-keys`, {
    name: "spare"
  })
  // Sent to the sink, where nobody reads it.
  const message = await created(server.adminKey, `${INTERNAL}/empresas/${tenant.empresa.id}/emails/test`, {
    to: "fuzz@example.com"
  })
  const seeds = {
    client_id: [ana.id, bruno.id, foreign.id, member.clientId],
    product_id: [product.id, jewel.id],
    product_uid: [product.id, jewel.id],
    reward_id: [reward.id, jewelReward.id],
    reward_uid: [reward.id, jewelReward.id],
    store_id: [tenant.empresa.id, sandbox.empresa.id],
    cart_id: [cart.cart_id],
    redemption_id: [redeemed.redemption.id],
    task_id: [scanned.task_id],
    program_id: [program.id],
    card_id: cards.map((card) => card.id),
    starting_after: cards.map((card) => card.id),
    campaign_id: [campaign.id],
    quest_id: [quest.id],
    estabelecimento_ref: [tenant.empresa.id_name, tenant.empresa.id, sandbox.empresa.id_name, "NAO-EXISTE"],
    response_id: [response.response_id],
    empresa_id: [tenant.empresa.id, tenant.empresa.id, sandbox.empresa.id],
    key_id: [spareKey.id],
    message_id: [message.id],
    uid: [...coupons.map((coupon) => coupon.uid), coupons[0].uid.toLowerCase()],
    category: ["Brindes"],
    search: ["Ana", "caneca", "ana@example.com"]
  }
  return { tenant, seeds, member, qrCodes }
}

const { tenant, seeds, member, qrCodes } = await seedWorld().catch(async (error: unknown) => {
  await server.stop()
  throw error
})

const options: FuzzOptions = { seeds, hints: { qr_code: qrCodes }, skipKnownBugs: SKIP_KNOWN_BUGS }

/**
 * The settings company runs start from. Stored settings merge key by key and cannot be removed,
 * so a run's own settings are undone by writing these back; keys not listed here keep the last
 * value a run gave them.
 */
const USUAL_SETTINGS = {
  timezone: "America/Sao_Paulo",
  point_value: 0.01,
  points_per_real: 1,
  coupon_validity_days: 30,
  redemption_validity_days: 7,
  nfce_max_total: 10_000,
  nfce_receipts_per_day: 1000
}

/** The fuzzed empresa's settings as last written, or undefined when a run may have changed them. */
let settingsInEffect: string | undefined

const patchTenant = (body: Record<string, unknown>) =>
  exchange(`${INTERNAL}/empresas/${tenant.empresa.id}`, { method: "PATCH", key: server.adminKey, body: toJson(body) })

/** Company operations read the empresa's settings (time zone, point value): they are part of a run's input. */
const applySettings = async (settings: FuzzCase["settings"]): Promise<Exchange | undefined> => {
  const wanted = toJson({ ...USUAL_SETTINGS, ...settings })
  if (wanted === settingsInEffect) return undefined
  const result = await patchTenant({ settings: { ...USUAL_SETTINGS, ...settings } })
  settingsInEffect = result.response.status === 200 ? wanted : undefined
  return result
}

/**
 * An admin run may have switched the fuzzed empresa's API access off (every later company call a
 * 403) or changed its settings.
 */
const restoreTenant = async () => {
  settingsInEffect = undefined
  const result = await patchTenant({ api_access: true })
  if (result.response.status !== 200)
    throw new Error(`restoring the tenant: ${result.response.status} ${JSON.stringify(result.response.body)}`)
}

/** How a target authenticates: an API key, or the member's bearer token in `headers`. */
interface Credential {
  readonly key?: string
  readonly headers?: Record<string, string>
}

const exchange = async (
  path: string,
  init: { method: string; key?: string; body?: string; headers?: Record<string, string> }
) => {
  const started = performance.now()
  const response = await call(server, path, { ...init, signal: AbortSignal.timeout(ABORT_MS) })
  const ms = Math.round(performance.now() - started)
  return { request: `${init.method} ${path}${init.body === undefined ? "" : ` ${init.body}`}`, response, ms }
}

interface OpenApiOperation {
  readonly operationId: string
  readonly parameters?: ReadonlyArray<{ name: string; in: string; required?: boolean; schema: JsonSchema }>
  readonly requestBody?: { content: { "application/json": { schema: JsonSchema } } }
}

const fieldsOf = (operation: OpenApiOperation): ReadonlyArray<Field> => {
  const body = operation.requestBody?.content["application/json"].schema
  return [
    ...(operation.parameters ?? [])
      .filter((p): p is typeof p & { in: Field["in"] } => p.in === "path" || p.in === "query" || p.in === "header")
      .map((p) => ({ name: p.name, in: p.in, schema: p.schema, required: p.required ?? false })),
    ...Object.entries(body?.properties ?? {}).map(([name, schema]) => ({
      name,
      in: "body" as const,
      schema,
      required: body?.required?.includes(name) ?? false
    }))
  ]
}

const headersOf = (fields: ReadonlyArray<Field>, c: FuzzCase) =>
  Object.fromEntries(
    Object.entries(presentValues(fields, c, (f) => f.in === "header")).map(([name, value]) => [name, toHeader(value)])
  )

/** A REST operation: path parameters URL-encoded, query parameters repeated for lists, the rest in the body. */
const restTarget = (
  base: string,
  path: string,
  method: string,
  operation: OpenApiOperation,
  credential: Credential
): Target => {
  const fields = fieldsOf(operation)
  const inQuery = method === "get" || method === "delete"
  return {
    label: `REST ${method.toUpperCase()} ${base}${path}`,
    fields,
    // The member's operations act on the fuzzed store too (its settings price the receipts, the points).
    company: base === PUBLIC || base === END_USER,
    send: (c) => {
      const url =
        base +
        path.replace(/\{(\w+)\}/g, (_, name: string) =>
          percentEncode(c.values[name] === undefined ? "" : toText(c.values[name]))
        )
      const query = new URLSearchParams()
      const appendAll = (name: string, value: unknown) => {
        for (const item of Array.isArray(value) ? value : [value]) query.append(name, toText(item))
      }
      for (const [name, value] of Object.entries(presentValues(fields, c, (f) => f.in === "query")))
        appendAll(name, value)
      if (inQuery) for (const [name, value] of Object.entries(c.extra)) appendAll(name, value)
      const body = inQuery
        ? undefined
        : c.whole !== undefined
          ? toJson(c.whole)
          : operation.requestBody !== undefined || Object.keys(c.extra).length > 0
            ? toJson({ ...presentValues(fields, c, (f) => f.in === "body"), ...c.extra })
            : undefined
      // A GET has no body to spoil, so its whole-request junk goes into the query string.
      const junk = inQuery && c.whole !== undefined ? toText(c.whole) : ""
      const search = [query.toString(), junk].filter((part) => part !== "").join("&")
      return exchange(`${url}${search === "" ? "" : `?${search}`}`, {
        method: method.toUpperCase(),
        ...credential,
        headers: { ...headersOf(fields, c), ...credential.headers },
        ...(body !== undefined ? { body } : {})
      })
    }
  }
}

/** The same procedure over tRPC (the operation id is its dotted path): one input object, query or mutation. */
const trpcTarget = (method: string, operation: OpenApiOperation, key: string, company: boolean): Target => {
  const fields = fieldsOf(operation)
  const procedure = operation.operationId.replaceAll("-", ".")
  return {
    label: `tRPC ${procedure}`,
    fields,
    company,
    send: (c) => {
      const input =
        c.whole !== undefined ? c.whole : { ...presentValues(fields, c, (f) => f.in !== "header"), ...c.extra }
      const headers = headersOf(fields, c)
      return method === "get"
        ? exchange(`/trpc/${procedure}?input=${percentEncode(toJson(input))}`, { method: "GET", key, headers })
        : exchange(`/trpc/${procedure}`, { method: "POST", key, headers, body: toJson(input) })
    }
  }
}

interface Tool {
  readonly name: string
  /** The procedure's summary, as in the OpenAPI document. */
  readonly title?: string
  readonly inputSchema: JsonSchema
}

let rpcId = 0

const mcpTarget = (
  tool: Tool,
  key: string,
  principal: string,
  headers: Record<string, string>,
  company: boolean
): Target => {
  const properties = tool.inputSchema.properties ?? {}
  const required = tool.inputSchema.required ?? []
  const fields = Object.entries(properties).map(([name, schema]) => ({
    name,
    in: "body" as const,
    schema,
    required: required.includes(name)
  }))
  return {
    label: `MCP ${tool.name} (${principal})`,
    fields,
    company,
    send: (c) => {
      const args = c.whole !== undefined ? c.whole : { ...presentValues(fields, c, () => true), ...c.extra }
      const body = toJson({
        jsonrpc: "2.0",
        id: ++rpcId,
        method: "tools/call",
        params: { name: tool.name, arguments: args }
      })
      return exchange("/mcp", { method: "POST", key, headers: { ...MCP_ACCEPT, ...headers }, body })
    },
    extraProblem: (response) => {
      const body = rpcBody(response)
      if (body?.error?.code === -32603) return "JSON-RPC internal error"
      if (body?.result?.isError === true && saysInternal(JSON.stringify(body.result.content)))
        return "tool result says Internal"
      return undefined
    },
    outcome: (response) => {
      const body = rpcBody(response)
      if (body?.error !== undefined) return `rpc${body.error.code}`
      if (body?.result?.isError === true) {
        const text = JSON.stringify(body.result.content)
        return text.includes("Invalid arguments")
          ? "tool-422"
          : text.includes("Refused")
            ? "tool-409"
            : text.includes("Not found")
              ? "tool-404"
              : "tool-error"
      }
      return body?.result !== undefined ? "ok" : String(response.status)
    }
  }
}

const rpcBody = (response: ApiResponse) =>
  response.body as { error?: { code: number }; result?: { isError?: boolean; content?: unknown } } | undefined

const listTools = async (key: string, headers: Record<string, string> = {}) => {
  const res = await call(server, "/mcp", {
    key,
    headers: { ...MCP_ACCEPT, ...headers },
    body: { jsonrpc: "2.0", id: ++rpcId, method: "tools/list", params: {} }
  })
  if (res.status !== 200) throw new Error(`tools/list: ${res.status} ${JSON.stringify(res.body)}`)
  return (res.body as { result: { tools: ReadonlyArray<Tool> } }).result.tools
}

interface OpenApiDocument {
  readonly paths: Record<string, Record<string, OpenApiOperation & { summary?: string }>>
}

/**
 * The end-user operations where amounts add up (a cart, a redemption, a receipt, the sums of
 * balances), fuzzed as the member over REST only: the same procedures over tRPC would double their
 * time and find nothing REST does not.
 */
const amountsAddUp = (path: string, method: string) =>
  /^\/(cart|rewards|redemptions|nfce|establishments)\b/.test(path) || (path === "/users/me" && method === "get")

/**
 * The operations of the three documents (of the end-user one, those where amounts add up), the
 * schema of an empresa's settings, and the company operations' summaries.
 */
const readDocuments = async () => {
  const operations: Array<{ base: string; path: string; method: string; operation: OpenApiOperation }> = []
  const companySummaries = new Set<string | undefined>()
  let settings: JsonSchema | undefined
  for (const base of [PUBLIC, INTERNAL, END_USER]) {
    const doc = (await call(server, `${base}/openapi.json`)).body as OpenApiDocument
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (base === END_USER && !amountsAddUp(path, method)) continue
        operations.push({ base, path, method, operation })
        if (base === PUBLIC) companySummaries.add(operation.summary)
        if (path.includes("{empresa_id}") && method === "patch") {
          settings ??= operation.requestBody?.content["application/json"].schema.properties?.["settings"]
        }
      }
    }
  }
  return { operations, companySummaries, settings }
}

const documents = await readDocuments().catch(async (error: unknown) => {
  await server.stop()
  throw error
})

const discoverTargets = async (): Promise<ReadonlyArray<Target>> => {
  const apiKeyOf = (base: string) => (base === PUBLIC ? tenant.key : server.adminKey)
  const credentialOf = (base: string): Credential =>
    base === END_USER ? { headers: member.auth } : { key: apiKeyOf(base) }
  const rest = documents.operations.map(({ base, path, method, operation }) =>
    restTarget(base, path, method, operation, credentialOf(base))
  )
  const trpc = documents.operations
    .filter(({ base }) => base !== END_USER)
    .map(({ base, method, operation }) => trpcTarget(method, operation, apiKeyOf(base), base === PUBLIC))
  // Admin-only tools are listed to admin keys only; those of the company API act on the empresa the header names.
  const empresaHeader = { "fidelis-empresa": tenant.empresa.id }
  const companyTools = await listTools(tenant.key)
  const adminTools = await listTools(server.adminKey, empresaHeader)
  const companyNames = new Set(companyTools.map((tool) => tool.name))
  const mcp = [
    ...companyTools.map((tool) => mcpTarget(tool, tenant.key, "company key", {}, true)),
    ...adminTools
      .filter((tool) => !companyNames.has(tool.name))
      .map((tool) =>
        mcpTarget(tool, server.adminKey, "admin key", empresaHeader, documents.companySummaries.has(tool.title))
      )
  ]
  return [...rest, ...trpc, ...mcp].filter((target) => ONLY === undefined || target.label.includes(ONLY))
}

const targets = await discoverTargets().catch(async (error: unknown) => {
  await server.stop()
  throw error
})
const OPERATION_BUDGET_MS = operationBudget(targets.length)
/**
 * In CI the file's time ends here however slow each run was (a busy machine once stretched it past 45
 * minutes): operations after it are listed as not reached. The order turns by one operation a day, so
 * the ones a slow machine leaves out change from day to day.
 */
const deadline = OPERATION_BUDGET_MS === undefined ? Infinity : Date.now() + SUITE_BUDGET_MS
const turn = OPERATION_BUDGET_MS === undefined ? 0 : Math.floor(Date.now() / 86_400_000) % Math.max(targets.length, 1)
const ordered = [...targets.slice(turn), ...targets.slice(0, turn)]

const excerpt = (text: string, max = 1_500) =>
  text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text

const reportOf = (problem: string, { request, response, ms }: Exchange) => {
  const body = typeof response.body === "string" ? response.body : JSON.stringify(response.body)
  return `${problem}\n  request: ${excerpt(request, 600)}\n  response: ${response.status} in ${ms} ms: ${excerpt(body)}`
}

/** Settings in some company runs: an empresa's settings are as much a run's input as its fields. */
const settingsArb: fc.Arbitrary<FuzzCase["settings"]> =
  documents.settings === undefined
    ? fc.constant(undefined)
    : fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: (validArb(documents.settings, "settings", options) as fc.Arbitrary<Record<string, unknown>>).map(
            (settings) => (Object.keys(settings).length > 0 ? settings : undefined)
          )
        }
      )

const caseArbOf = (target: Target): fc.Arbitrary<FuzzCase> =>
  target.company
    ? fc
        .tuple(caseArb(target.fields, options), settingsArb)
        .map(([c, settings]) => (settings === undefined ? c : { ...c, settings }))
    : caseArb(target.fields, options)

const problemOf = (target: Target | undefined, { response, ms }: Exchange): string | undefined => {
  if (response.status >= 500) return `HTTP ${response.status}`
  if (ms > TIMEOUT_MS) return `slow: ${ms} ms (bound ${TIMEOUT_MS} ms)`
  const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body)
  const leak = leakIn(text)
  if (leak !== undefined) return `body leaks internals (/${leak}/)`
  return target?.extraProblem?.(response)
}

/** Status counts per operation, to see how deep the runs get (FUZZ_VERBOSE=1). */
const statistics: Array<string> = []

/**
 * Each operation its own random stream (operations with the same fields would otherwise get the
 * same inputs), all from FUZZ_SEED.
 */
const seedOf = (target: Target) => {
  let hash = 0x811c9dc5
  for (const char of target.label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193)
  return (SEED ^ hash) | 0
}

/** Runs the property for one target; the failure report (exchange, counterexample, replay line), or undefined. */
const fuzz = async (target: Target): Promise<string | undefined> => {
  if (Date.now() > deadline) {
    statistics.push(`${target.label}: not reached within FUZZ_BUDGET_MS`)
    return undefined
  }
  const statuses = new Map<string, number>()
  const count = (outcome: string) => statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1)
  let slowest = 0
  const restore = target.fields.some((field) => field.name === "empresa_id")
  const property = fc.asyncProperty(caseArbOf(target), async (c) => {
    const setup = target.company ? await applySettings(c.settings) : undefined
    if (setup !== undefined) count(`settings:${setup.response.status}`)
    const setupProblem = setup === undefined ? undefined : problemOf(undefined, setup)
    if (setup !== undefined && setupProblem !== undefined)
      throw new Error(reportOf(`setting up the run: ${setupProblem}`, setup))
    const result = await target.send(c).catch((error: unknown) => {
      throw new Error(`no answer: ${String(error)}`)
    })
    if (restore) await restoreTenant()
    count(target.outcome?.(result.response) ?? String(result.response.status))
    slowest = Math.max(slowest, result.ms)
    const problem = problemOf(target, result)
    if (problem !== undefined) throw new Error(reportOf(problem, result))
  })
  const details = await fc.check(property, {
    seed: seedOf(target),
    numRuns: RUNS,
    // The library types its plugins for unknown inputs, which the checker will not widen to these.
    ...(OPERATION_BUDGET_MS !== undefined
      ? { plugins: [fc.interruptAfterTimeLimit(OPERATION_BUDGET_MS) as fc.Plugin<[FuzzCase]>] }
      : {}),
    ...(REPLAY_PATH !== undefined ? { path: REPLAY_PATH, endOnFailure: true } : {})
  })
  const counts = [...statuses].toSorted(([a], [b]) => a.localeCompare(b)).map(([outcome, n]) => `${outcome}×${n}`)
  statistics.push(`${target.label}: ${counts.join(" ")}, slowest ${slowest} ms`)
  if (!details.failed) return undefined
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
  return [
    `${target.label}: ${cause}`,
    `  counterexample (after ${details.numShrinks} shrinks): ${fc.stringify(details.counterexample?.[0])}`,
    `  replay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath} FUZZ_ONLY='${target.label}' ` +
      `npx vitest run test/fuzz.test.ts`
  ].join("\n")
}

afterAll(() => {
  if (VERBOSE) console.log(`fuzz seed ${SEED}, ${RUNS} runs per operation\n${statistics.join("\n")}`)
})

describe(`fuzzing every operation (seed ${SEED}, ${RUNS} runs each)`, () => {
  it.skipIf(ONLY !== undefined)("finds every surface's operations, and tRPC has a procedure for each", async () => {
    expect([...new Set(targets.map((target) => target.label.split(" ")[0]))]).toEqual(["REST", "tRPC", "MCP"])
    // The tRPC path comes from the operation id: a drift would make every tRPC run a 404 and pass.
    const unreached: Array<string> = []
    for (const target of targets.filter((candidate) => candidate.label.startsWith("tRPC"))) {
      const { response } = await target.send({ values: {}, extra: {} })
      if (/No procedure found|METHOD_NOT_SUPPORTED/.test(JSON.stringify(response.body))) unreached.push(target.label)
    }
    expect(unreached).toEqual([])
  })

  // The report is the assertion's message, so it prints as written rather than as an escaped string.
  it.for(ordered)("$label", { timeout: RUNS * ABORT_MS + 120_000 }, async (target) => {
    const failure = await fuzz(target)
    expect(failure === undefined, failure).toBe(true)
  })
})
