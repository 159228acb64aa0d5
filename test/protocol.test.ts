import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import {
  call,
  createClient,
  createProduct,
  createTenant,
  creditPoints,
  useMcp,
  useServer,
  useTenant,
  type TestServer
} from "./support/index.js"

const APP_ORIGIN = "https://app.example.com"

// A cheap password hash: the login refusals below hash a decoy.
const server = useServer({ env: { FIDELIS_PASSWORD_COST: "10", FIDELIS_ALLOWED_ORIGINS: APP_ORIGIN } })
const tenant = useTenant(server)
const mcp = useMcp(server, tenant)

describe("UUIDs: any canonical one, on every surface (docs/decisions.md, 'Any canonical UUID')", () => {
  // Canonical (8-4-4-4-12 hex), as `format: uuid` says, but with RFC 9562's version and variant digits 0.
  const LOOSE = "3f2a6c1e-8b4d-0e5f-0a7b-1c2d3e4f5a6b"

  it("a canonical UUID of no RFC 9562 version is looked up (404), not refused as malformed (422)", async () => {
    const rest = await call(server, `/api/v1/public/clients/${LOOSE}`, { key: tenant.key })
    expect([rest.status, rest.body.code]).toEqual([404, "NOT_FOUND"])
    const malformed = await call(server, "/api/v1/public/clients/3f2a6c1e-8b4d-0e5f-0a7b", { key: tenant.key })
    expect([malformed.status, malformed.body.detail[0].type]).toEqual([422, "uuid_parsing"])

    const tool = await mcp.callTool({ name: "get_client", arguments: { client_id: LOOSE } })
    expect((tool._meta as Record<string, { code: string }>)["fidelis/error"]?.code).toBe("NOT_FOUND")
    const { tools } = await mcp.listTools()
    const pattern = tools.find((t) => t.name === "get_client")?.inputSchema.properties?.["client_id"] as {
      format?: string
      pattern?: string
    }
    expect(pattern.format).toBe("uuid")
    expect(LOOSE).toMatch(new RegExp(pattern.pattern ?? ""))

    const trpc = await createFidelisClient({ url: server.url, apiKey: tenant.key })
      .clients.get.query({ client_id: LOOSE })
      .catch((error: unknown) => error)
    expect(trpc).toBeInstanceOf(TRPCClientError)
    expect((trpc as TRPCClientError<never>).data).toMatchObject({ httpStatus: 404 })

    const cli = await fidelis(["--url", server.url, "clients", "get", LOOSE, "--json"], {
      FIDELIS_API_KEY: tenant.key
    })
    expect([cli.code, JSON.parse(cli.stderr).code]).toEqual([4, "NOT_FOUND"])
  })
})

/** The challenge of a request's answer, which must be a 401. */
const challengeOf = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, init)
  expect(res.status, path).toBe(401)
  return res.headers.get("www-authenticate")
}

const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

describe("every 401 carries a challenge (RFC 9110)", () => {
  const KEY_DESCRIPTION = 'error_description="Check the Fidelis API key: send it as X-API-Key or Authorization: Bearer"'
  const MISSING_KEY = `Bearer realm="fidelis", ${KEY_DESCRIPTION}`
  const WRONG_KEY = `Bearer realm="fidelis", error="invalid_token", ${KEY_DESCRIPTION}`

  it("the company and admin APIs, on REST, tRPC and MCP, without a key and with a wrong one", async () => {
    const wrong = { "x-api-key": "fid_wrong" }
    expect(await challengeOf("/api/v1/public/clients")).toBe(MISSING_KEY)
    expect(await challengeOf("/api/v1/public/clients", { headers: wrong })).toBe(WRONG_KEY)
    expect(await challengeOf("/api/v1/public/clients", postJson({}))).toBe(MISSING_KEY)
    expect(await challengeOf("/api/v1/public/clients", postJson({}, wrong))).toBe(WRONG_KEY)
    const empresa = `/api/v1/internal/empresas/${tenant.empresa.id}`
    expect(await challengeOf(empresa, { headers: { authorization: "Bearer fid_x" } })).toBe(WRONG_KEY)
    expect(await challengeOf("/trpc/clients.list")).toBe(MISSING_KEY)
    expect(await challengeOf("/trpc/clients.list", { headers: wrong })).toBe(WRONG_KEY)
    const toolServer = postJson({}, { accept: "application/json, text/event-stream" })
    expect(await challengeOf("/mcp", toolServer)).toBe(MISSING_KEY)
  })

  it("a refused login or refresh names the bearer scheme the end-user API takes", async () => {
    const login = postJson({ email: "nobody@example.com", password: "wrong-password" })
    expect(await challengeOf("/api/v1/auth/login", login)).toBe('Bearer realm="fidelis"')
    const refresh = postJson({ refresh_token: "not-a-refresh-token" })
    expect(await challengeOf("/api/v1/auth/refresh", refresh)).toBe('Bearer realm="fidelis"')
  })
})

/** The 201's Location, checked to be the path of the id it returned. */
const locationOf = async (path: string, body: unknown, key: string, expected: (created: any) => string) => {
  const res = await call(server, path, { key, body })
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(201)
  expect(res.headers.get("location"), path).toBe(expected(res.body))
  return res.headers.get("location")!
}

describe("a 201 says where its resource is (Location)", () => {
  it("company and admin creates: each Location is the path that reads or changes what was made", async () => {
    const base = "/api/v1/public"
    const clientAt = await locationOf(`${base}/clients`, { nome: "Ana" }, tenant.key, (c) => `${base}/clients/${c.id}`)
    const product = await createProduct(server, tenant)
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 500)
    const couponAt = await locationOf(
      `${base}/coupons/generate`,
      { client_id: client.id, product_id: product.id },
      tenant.key,
      (c) => `${base}/coupons/${c.uid}`
    )
    const productAt = await locationOf(
      `${base}/products`,
      { name: "Pão de queijo", points_cost: 50 },
      tenant.key,
      (p) => `${base}/products/${p.id}`
    )
    const rewardAt = await locationOf(
      `${base}/rewards`,
      { product_id: product.id, pontos_necessarios: 100 },
      tenant.key,
      (r) => `${base}/rewards/${r.id}`
    )
    for (const at of [clientAt, couponAt, productAt, rewardAt]) {
      expect((await call(server, at, { key: tenant.key })).status, at).toBe(200)
    }
    const programAt = await locationOf(
      `${base}/loyalty-cards/programs`,
      { name: "Cartão", stamps_required: 5, reward_description: "Um café" },
      tenant.key,
      (p) => `${base}/loyalty-cards/programs/${p.id}`
    )
    const renamed = await call(server, programAt, { method: "PATCH", key: tenant.key, body: { name: "Cartão Café" } })
    expect(renamed.status).toBe(200)

    const other = await createTenant(server)
    const admin = "/api/v1/internal"
    const empresaAt = await locationOf(
      `${admin}/empresas`,
      { name: "Padaria", id_name: `padaria-${other.empresa.id.slice(0, 8)}` },
      server.adminKey,
      (e) => `${admin}/empresas/${e.id}`
    )
    expect((await call(server, empresaAt, { key: server.adminKey })).status).toBe(200)
    const keyAt = await locationOf(
      `${admin}/empresas/${other.empresa.id}/api-keys`,
      { name: "caixa", scope: "empresa" },
      server.adminKey,
      (k) => `${admin}/api-keys/${k.id}`
    )
    const revoked = await call(server, keyAt, { method: "DELETE", key: server.adminKey })
    expect([revoked.status, revoked.body.revoked_at]).toEqual([200, expect.any(String)])
  })

  it("a registration's Location is the new account's profile", async () => {
    const res = await call(server, "/api/v1/auth/register", {
      body: { email: `loc${Date.now()}@example.com`, password: "segredo123", nome: "Ana" }
    })
    expect([res.status, res.headers.get("location")]).toEqual([201, "/api/v1/users/me"])
    const me = await call(server, "/api/v1/users/me", { headers: { authorization: `Bearer ${res.body.access_token}` } })
    expect(me.body.id).toBe(res.body.user.id)
  })
})

/**
 * A response's headers as a record, without those that differ between any two answers (date, request
 * id) and the connection's own (fetch closes the connection after a HEAD: undici asks for it).
 */
const SET_APART = new Set(["date", "x-request-id", "connection", "keep-alive", "transfer-encoding"])

const comparable = (headers: Headers) => {
  const record: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (SET_APART.has(name)) return
    // The rate-limit window moved on by the GET's own count; pages get a fresh nonce each.
    if (name === "x-ratelimit-remaining" || name === "x-ratelimit-reset") record[name] = "(a number)"
    else record[name] = value.replace(/nonce-[A-Za-z0-9+/=_-]+/g, "nonce-…")
  })
  return record
}

describe("HEAD answers what GET answers, without the body", () => {
  it("every kind of route and refusal: the same status and headers, and the length GET's body has", async () => {
    const key = { "x-api-key": tenant.key }
    const asked: Array<[string, Record<string, string>]> = [
      ["/healthz", {}],
      ["/readyz", {}],
      ["/", {}],
      ["/docs", {}],
      ["/docs/assets/swagger-ui.css", {}],
      [`/s/${tenant.empresa.id_name}`, {}],
      ["/s/nobody-here", {}],
      ["/api/v1/public/openapi.json", {}],
      ["/api/v1/public/clients", key],
      ["/api/v1/public/clients", {}],
      ["/api/v1/public/clients", { "x-api-key": "fid_wrong" }],
      [`/api/v1/public/clients/${crypto.randomUUID()}`, key],
      ["/api/v1/public/clientz", key],
      // No GET route: what GET gets, a 405 naming POST.
      ["/api/v1/public/points/credit", key],
      ["/api/v1/users/me", {}],
      ["/api/v1/nope", {}],
      ["/trpc/clients.list", key],
      ["/mcp", key],
      ["/nope", {}]
    ]
    for (const [path, headers] of asked) {
      const get = await fetch(`${server.url}${path}`, { headers, redirect: "manual" })
      const body = await get.arrayBuffer()
      const head = await fetch(`${server.url}${path}`, { method: "HEAD", headers, redirect: "manual" })
      expect(head.status, path).toBe(get.status)
      expect(await head.text(), path).toBe("")
      const expected = comparable(get.headers)
      if (body.byteLength > 0) expected["content-length"] = String(body.byteLength)
      expect(comparable(head.headers), path).toEqual(expected)
    }
  })

  it("a conditional HEAD of an OpenAPI document is a 304, as its GET is", async () => {
    const document = "/api/v1/public/openapi.json"
    const etag = (await fetch(`${server.url}${document}`)).headers.get("etag")!
    const head = await fetch(`${server.url}${document}`, { method: "HEAD", headers: { "if-none-match": etag } })
    expect([head.status, head.headers.get("etag")]).toEqual([304, etag])
  })
})

/** What every MCP POST sends beside its body. */
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** A raw POST to /mcp, for what the SDK client would not send; the body as JSON text, when it parses. */
const mcpPost = async (body: unknown, headers: Record<string, string> = {}, target: TestServer = server) => {
  const res = await fetch(`${target.url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) }
}

describe("MCP from a browser at an allowed origin (CORS)", () => {
  it("a preflight is answered with what the page may send, and every answer lets the page read it", async () => {
    const asked = {
      origin: APP_ORIGIN,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, x-api-key, mcp-protocol-version"
    }
    const pre = await fetch(`${server.url}/mcp`, { method: "OPTIONS", headers: asked })
    expect(pre.status).toBe(204)
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN)
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST")
    for (const header of ["Content-Type", "X-API-Key", "Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id"])
      expect(pre.headers.get("access-control-allow-headers")).toContain(header)
    expect(pre.headers.get("vary")).toContain("Origin")

    const listed = await mcpPost(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      { origin: APP_ORIGIN, "x-api-key": tenant.key }
    )
    expect(listed.status).toBe(200)
    expect(listed.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN)
    const exposed = listed.headers.get("access-control-expose-headers") ?? ""
    for (const header of ["Mcp-Session-Id", "WWW-Authenticate", "Retry-After", "X-RateLimit-Remaining"])
      expect(exposed).toContain(header)
    // A refusal too, so the page can read why.
    const refused = await mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { origin: APP_ORIGIN })
    expect([refused.status, refused.headers.get("access-control-allow-origin")]).toEqual([401, APP_ORIGIN])
  })

  it("another origin is refused, preflight included, and gets no CORS headers", async () => {
    for (const method of ["OPTIONS", "POST"]) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { ...MCP_HEADERS, origin: "https://evil.example", "x-api-key": tenant.key }
      })
      expect(res.status, method).toBe(403)
      expect(res.headers.get("access-control-allow-origin"), method).toBeNull()
    }
  })
})

describe("MCP's JSON-RPC errors", () => {
  it("say what is wrong without the SDK's 'MCP error <code>:' prefix", async () => {
    const key = { "x-api-key": tenant.key }
    const unknown = await mcpPost(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_clent", arguments: {} } },
      key
    )
    expect(unknown.body.error).toMatchObject({
      code: -32602,
      message: "Tool create_clent not found; did you mean create_client?"
    })
    const unnamed = await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/call", params: {} }, key)
    expect(unnamed.body.error.code).toBe(-32602)
    expect(unnamed.body.error.message).not.toMatch(/^MCP error/)
  })

  it("JSON that is not JSON-RPC is an Invalid Request (-32600); a body that is not JSON, a parse error", async () => {
    const key = { "x-api-key": tenant.key }
    for (const body of [{ jsonrpc: "1.0", id: 1, method: "tools/list" }, { hello: "world" }, 42, [{ id: 1 }], []]) {
      const res = await mcpPost(body, key)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error, JSON.stringify(body)).toMatchObject({
        code: -32600,
        message: expect.stringMatching(/^Invalid Request: /),
        data: { code: "BAD_REQUEST", request_id: res.headers.get("x-request-id") }
      })
    }
    const broken = await mcpPost('{"jsonrpc": "2.0",', key)
    expect([broken.status, broken.body.error.code]).toEqual([400, -32700])
  })

  it("a batch is refused under MCP 2025-06-18 and later, which have none, and taken under 2025-03-26", async () => {
    const key = { "x-api-key": tenant.key }
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" }
    ]
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await mcpPost(batch, { ...key, "mcp-protocol-version": version })
      expect(res.status, version).toBe(400)
      expect(res.body.error, version).toMatchObject({
        code: -32600,
        message:
          `Invalid Request: MCP ${version} has no JSON-RPC batches (removed in 2025-06-18): ` +
          "send one message per request",
        data: { code: "BAD_REQUEST" }
      })
    }
    // An initialize names its version in its params.
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "batcher", version: "1" } }
    }
    expect((await mcpPost([initialize], key)).body.error.code).toBe(-32600)
    // Without the header a server assumes 2025-03-26, which has batches; and so with it.
    for (const headers of [key, { ...key, "mcp-protocol-version": "2025-03-26" }]) {
      const res = await mcpPost(batch, headers)
      expect(res.status).toBe(200)
      expect(res.body.map((answer: { id: number }) => answer.id).toSorted()).toEqual([1, 2])
    }
  })
})

describe("MCP's refusals before any message is read are JSON-RPC errors", () => {
  const limited = useServer({ env: { FIDELIS_RATE_LIMIT_PER_MINUTE: "1" } })
  const list = { jsonrpc: "2.0", id: 7, method: "tools/list" }

  it("401 and 429 keep their status and headers, with the error body every surface answers in data", async () => {
    const anonymous = await mcpPost(list)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer realm="fidelis"/)
    expect(anonymous.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "Missing API key: send it in the X-API-Key header",
        data: {
          detail: "Missing API key: send it in the X-API-Key header",
          code: "UNAUTHENTICATED",
          request_id: anonymous.headers.get("x-request-id")
        }
      }
    })

    // A budget of one call a minute: of three, the last is past it, whichever minute the first fell in.
    const { key } = await createTenant(limited)
    let last: Awaited<ReturnType<typeof mcpPost>> | undefined
    for (let i = 0; i < 3; i++) last = await mcpPost(list, { "x-api-key": key }, limited)
    expect(last!.status).toBe(429)
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(last!.headers.get("x-ratelimit-limit")).toBe("1")
    expect(last!.body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: expect.stringMatching(/^Rate limit exceeded; retry in \d+ s$/),
        data: { code: "RATE_LIMIT_EXCEEDED", request_id: last!.headers.get("x-request-id") }
      }
    })
  })
})
