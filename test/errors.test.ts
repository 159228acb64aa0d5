import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import { call, createClient, useMcp, useServer, useTenant, type ApiResponse } from "./support/index.js"

const server = useServer()
const tenant = useTenant(server)
const mcp = useMcp(server, tenant)

const UUID = "3f2a6c1e-8b4d-4e5f-9a7b-1c2d3e4f5a6b"

/** Every error body: the spec's `detail`, a machine code, and the id the response header gives. */
const expectProblem = (res: ApiResponse, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body).toEqual({ detail: expect.anything(), code, request_id: res.headers.get("x-request-id") })
  expect(res.headers.get("content-type")).toMatch(/^application\/json/)
}

/** A raw request, for bodies and content types `call` would not send. */
const raw = async (path: string, init: RequestInit & { key?: string }): Promise<ApiResponse> => {
  const headers = new Headers(init.headers)
  if (init.key !== undefined) headers.set("x-api-key", init.key)
  const res = await fetch(`${server.url}${path}`, { ...init, headers })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) }
}

/** A client created with a body as written, under a content type. */
const postClient = (contentType: string, body: string) =>
  raw("/api/v1/public/clients", { method: "POST", key: tenant.key, headers: { "content-type": contentType }, body })

describe("REST errors a person understands", () => {
  it("a body not sent as JSON is a 415 that says to send JSON", async () => {
    const res = await postClient("text/plain", "nome=Ana")
    expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE")
    expect(res.body.detail).toBe(
      'Content-Type "text/plain" is not supported: ' +
        "send the body as JSON, with the header Content-Type: application/json"
    )
  })

  it("malformed JSON is a 400 that says where it broke and what was expected there", async () => {
    const res = await postClient("application/json", '{\n  "nome": "Ana",\n}')
    expectProblem(res, 400, "MALFORMED_JSON")
    expect(res.body.detail).toBe(
      "Malformed JSON at line 3, column 1 (position 19): expected a property name in double quotes, found '}'"
    )
    const cut = await postClient("application/json", '{"nome": "Ana')
    expectProblem(cut, 400, "MALFORMED_JSON")
    expect(cut.body.detail).toMatch(/column 14 .*expected '"' to close the string, found the end of the body/)
  })

  it("a wrong method on a known path is a 405 whose Allow header lists the path's methods", async () => {
    const res = await raw("/api/v1/public/clients", { method: "PUT", key: tenant.key })
    expectProblem(res, 405, "METHOD_NOT_ALLOWED")
    expect(res.headers.get("allow")).toBe("GET, POST")
    expect(res.body.detail).toBe("PUT is not allowed on /api/v1/public/clients; use GET or POST")
    const item = await raw(`/api/v1/public/rewards/${UUID}`, { method: "DELETE", key: tenant.key })
    expectProblem(item, 405, "METHOD_NOT_ALLOWED")
    expect(item.headers.get("allow")).toBe("GET, PATCH")
    // The document is a route of its own.
    const doc = await raw("/api/v1/public/openapi.json", { method: "POST", key: tenant.key })
    expectProblem(doc, 405, "METHOD_NOT_ALLOWED")
    expect(doc.headers.get("allow")).toBe("GET")
  })

  it("an unknown path under /api/v1 is a 404 that names the nearest route", async () => {
    const typo = await call(server, "/api/v1/public/clientz", { key: tenant.key })
    expectProblem(typo, 404, "ROUTE_NOT_FOUND")
    expect(typo.body.detail).toBe(
      "No route GET /api/v1/public/clientz. Did you mean GET /api/v1/public/clients? " +
        "Every route is listed in /api/v1/public/openapi.json."
    )
    // A parameter matches whatever the request put there.
    const deeper = await call(server, `/api/v1/public/clients/${UUID}/timelin`, { key: tenant.key })
    expectProblem(deeper, 404, "ROUTE_NOT_FOUND")
    expect(deeper.body.detail).toContain("Did you mean GET /api/v1/public/clients/{client_id}/timeline?")
    // Outside both APIs' bases, and in the other API.
    const unprefixed = await call(server, "/api/v1/clients", { key: tenant.key })
    expectProblem(unprefixed, 404, "ROUTE_NOT_FOUND")
    expect(unprefixed.body.detail).toContain("Did you mean GET /api/v1/public/clients?")
    const admin = await call(server, "/api/v1/public/empresas", { key: tenant.key, body: {} })
    expectProblem(admin, 404, "ROUTE_NOT_FOUND")
    expect(admin.body.detail).toContain(
      "Did you mean POST /api/v1/internal/empresas? Every route is listed in /api/v1/internal/openapi.json."
    )
    // Nothing near: no guess, only where the routes are.
    const far = await call(server, "/api/v1/public/zzzzzzzzzzzzzzzzzzzzzzzzzzzz", { key: tenant.key })
    expectProblem(far, 404, "ROUTE_NOT_FOUND")
    expect(far.body.detail).not.toContain("Did you mean")
    // Outside the API too, the body carries its code and id.
    expectProblem(await call(server, "/nope"), 404, "ROUTE_NOT_FOUND")
  })

  /** One invalid field per kind, with the message a person reads and the spec's `loc` and `type`. */
  const fieldKinds: ReadonlyArray<{
    readonly kind: string
    readonly request: () => Promise<ApiResponse>
    readonly item: { readonly loc: ReadonlyArray<string>; readonly msg: string; readonly type: string }
  }> = [
    {
      kind: "string length",
      request: () => call(server, "/api/v1/public/clients", { key: tenant.key, body: { nome: "x".repeat(201) } }),
      item: { loc: ["body", "nome"], msg: "Must be at most 200 characters", type: "string_too_long" }
    },
    {
      kind: "integer",
      request: async () =>
        call(server, "/api/v1/public/points/credit", {
          key: tenant.key,
          body: { client_id: (await createClient(server, tenant)).id, points: 1.5 }
        }),
      item: { loc: ["body", "points"], msg: "Must be a whole number, got 1.5", type: "int_type" }
    },
    {
      kind: "number from a query string",
      request: () => call(server, "/api/v1/public/clients?page=abc", { key: tenant.key }),
      item: { loc: ["query", "page"], msg: 'Must be a number, got "abc"', type: "number_type" }
    },
    {
      kind: "enum",
      request: () => call(server, "/api/v1/public/loyalty-cards/metrics?group_by=year", { key: tenant.key }),
      item: { loc: ["query", "group_by"], msg: "Must be one of: day, week, month", type: "enum" }
    },
    {
      kind: "uuid",
      request: () => call(server, "/api/v1/public/clients/not-a-uuid", { key: tenant.key }),
      item: {
        loc: ["path", "client_id"],
        msg: "Must be a UUID such as 3f2a6c1e-8b4d-4e5f-9a7b-1c2d3e4f5a6b",
        type: "uuid_parsing"
      }
    },
    {
      kind: "date-time",
      request: () => call(server, `/api/v1/public/clients/${UUID}/timeline?from=yesterday`, { key: tenant.key }),
      item: {
        loc: ["query", "from"],
        msg: "Must be a date-time such as 2026-01-31T12:00:00Z",
        type: "string_pattern_mismatch"
      }
    },
    {
      kind: "email",
      request: () => call(server, "/api/v1/public/clients", { key: tenant.key, body: { nome: "Ana", email: "ana" } }),
      item: {
        loc: ["body", "email"],
        msg: "Must be an email address such as ana@example.com",
        type: "string_pattern_mismatch"
      }
    },
    {
      kind: "boolean",
      request: () =>
        call(server, `/api/v1/public/rewards/${UUID}`, { method: "PATCH", key: tenant.key, body: { active: "yes" } }),
      item: { loc: ["body", "active"], msg: "Must be true or false", type: "value_error" }
    },
    {
      kind: "missing required",
      request: () => call(server, "/api/v1/public/clients", { key: tenant.key, body: { email: "ana@example.com" } }),
      item: { loc: ["body", "nome"], msg: "Required", type: "missing" }
    },
    {
      kind: "unknown property",
      request: () =>
        call(server, "/api/v1/public/clients", { key: tenant.key, body: { nome: "Ana", emial: "ana@example.com" } }),
      item: { loc: ["body", "emial"], msg: "Unknown field; did you mean email?", type: "extra_forbidden" }
    }
  ]

  it.each(fieldKinds)("a 422 names the field and says why in plain words: $kind", async ({ request, item }) => {
    const res = await request()
    expectProblem(res, 422, "VALIDATION_FAILED")
    expect(res.body.detail).toEqual([item])
  })

  it("no message is zod's own wording", async () => {
    const res = await call(server, "/api/v1/public/clients?page=x&per_page=2.5&sort=up&extra=1", { key: tenant.key })
    expectProblem(res, 422, "VALIDATION_FAILED")
    const text = JSON.stringify(res.body.detail)
    for (const zodWords of [/Invalid input/, /expected \w+, received/, /Unrecognized key/, /Invalid option/]) {
      expect(text).not.toMatch(zodWords)
    }
  })

  it("other refusals carry their code and request id too: 401, 404, 409", async () => {
    expectProblem(await call(server, "/api/v1/public/clients", { key: "fid_wrong" }), 401, "UNAUTHENTICATED")
    expectProblem(await call(server, `/api/v1/public/clients/${UUID}`, { key: tenant.key }), 404, "NOT_FOUND")
    const client = await createClient(server, tenant, { email: `dup-${Date.now()}@example.com` })
    const dup = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: {
        nome: "Outra",
        email: (await call(server, `/api/v1/public/clients/${client.id}`, { key: tenant.key })).body.email
      }
    })
    expectProblem(dup, 409, "CLIENT_EXISTS")
    expect(dup.body.detail).toMatchObject({ code: "CLIENT_EXISTS" })
    // The caller's own request id, when it sends a sane one, is the one in the body.
    const traced = await call(server, "/api/v1/public/clientz", {
      key: tenant.key,
      headers: { "x-request-id": "trace-42" }
    })
    expect(traced.body.request_id).toBe("trace-42")
  })
})

type TrpcError = {
  error: {
    message: string
    code: number
    data: { code: string; httpStatus: number; error_code: string; request_id: string; detail: unknown }
  }
}

const trpc = (path: string, init: RequestInit) =>
  raw(`/trpc/${path}`, { ...init, key: tenant.key }) as Promise<ApiResponse<TrpcError>>

const expectData = (res: ApiResponse<TrpcError>, status: number, errorCode: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body.error.data).toMatchObject({
    httpStatus: status,
    error_code: errorCode,
    request_id: res.headers.get("x-request-id")
  })
}

describe("tRPC errors", () => {
  it("carry the machine code as error_code and the request id beside tRPC's own code", async () => {
    const media = await trpc("clients.create", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}"
    })
    expectData(media, 415, "UNSUPPORTED_MEDIA_TYPE")
    expect(media.body.error.message).toMatch(/send the body as JSON, with the header Content-Type: application\/json$/)

    const broken = await trpc("clients.create", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"nome": "Ana",}'
    })
    expectData(broken, 400, "MALFORMED_JSON")
    expect(broken.body.error.data.detail).toBe(
      "Malformed JSON at line 1, column 16 (position 15): expected a property name in double quotes, found '}'"
    )
    const brokenQuery = await trpc(`clients.list?input=${encodeURIComponent("{page: 1}")}`, { method: "GET" })
    expectData(brokenQuery, 400, "MALFORMED_JSON")
    expect(brokenQuery.body.error.data.detail).toMatch(/^Malformed JSON at line 1, column 2 /)

    const invalid = await trpc(`clients.list?input=${encodeURIComponent('{"page":"abc"}')}`, { method: "GET" })
    expectData(invalid, 422, "VALIDATION_FAILED")
    expect(invalid.body.error.data).toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
      detail: [{ loc: ["query", "page"], msg: 'Must be a number, got "abc"', type: "number_type" }]
    })

    const method = await trpc("clients.create", { method: "PUT", headers: { "content-type": "application/json" } })
    expectData(method, 405, "METHOD_NOT_ALLOWED")
    expect(method.headers.get("allow")).toBe("POST")
  })
})

/** A raw JSON-RPC POST to /mcp, for bodies the SDK client would not send. */
const post = (body: string, headers: Record<string, string> = {}) =>
  raw("/mcp", {
    method: "POST",
    key: tenant.key,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body
  })

describe("MCP errors", () => {
  it("a refused tool call says why, ends with the code and request id, and holds the body in _meta", async () => {
    const result = await mcp.callTool({ name: "create_client", arguments: { nome: "Ana", email: "ana" } })
    expect(result.isError).toBe(true)
    const body = (result._meta as Record<string, { request_id: string }>)["fidelis/error"]!
    expect(body).toEqual({
      detail: [
        {
          loc: ["body", "email"],
          msg: "Must be an email address such as ana@example.com",
          type: "string_pattern_mismatch"
        }
      ],
      code: "VALIDATION_FAILED",
      request_id: expect.any(String)
    })
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe(
      "Invalid arguments; nothing was changed. email: Must be an email address such as ana@example.com " +
        `(string_pattern_mismatch) [code VALIDATION_FAILED, request id ${body.request_id}]`
    )
  })

  it("JSON-RPC errors carry the code and request id in data; malformed JSON says where it broke", async () => {
    const unknown = await post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_clent"}}')
    expect(unknown.body.error).toEqual({
      code: -32602,
      message: expect.stringMatching(/Tool create_clent not found; did you mean create_client\?$/),
      data: { code: "ROUTE_NOT_FOUND", request_id: unknown.headers.get("x-request-id") }
    })
    const broken = await post('{"jsonrpc":"2.0","id":1,')
    expect(broken.status).toBe(400)
    expect(broken.body.error).toEqual({
      code: -32700,
      message:
        "Parse error: Malformed JSON at line 1, column 25 (position 24): " +
        "expected a property name in double quotes, found the end of the body",
      data: { code: "MALFORMED_JSON", request_id: broken.headers.get("x-request-id") }
    })
    const method = await raw("/mcp", { method: "GET", key: tenant.key })
    expect(method.status).toBe(405)
    expect(method.headers.get("allow")).toBe("POST")
    expect(method.body.error.data).toEqual({
      code: "METHOD_NOT_ALLOWED",
      request_id: method.headers.get("x-request-id")
    })
    // Refused before any MCP message is read: a JSON-RPC error whose data is the body every surface answers.
    const anonymous = await raw("/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: anonymous.body.error.data.detail,
        data: { detail: expect.any(String), code: "UNAUTHENTICATED", request_id: anonymous.headers.get("x-request-id") }
      }
    })
  })
})

describe("CLI --json errors", () => {
  it("print the server's error body on stderr, with its code and request id", async () => {
    const out = await fidelis(["--url", server.url, "clients", "list", "--per-page", "1.5", "--json"], {
      FIDELIS_API_KEY: tenant.key
    })
    expect(out.code).toBe(2)
    expect(out.stdout).toBe("")
    expect(JSON.parse(out.stderr)).toEqual({
      detail: [{ loc: ["query", "per_page"], msg: "Must be a whole number, got 1.5", type: "int_type" }],
      code: "VALIDATION_FAILED",
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/)
    })
    // A failure of the command line itself has a code of its own and no request.
    const usage = await fidelis(["--api-key", "x", "clients", "list", "--json"])
    expect(usage.code).toBe(2)
    expect(JSON.parse(usage.stderr)).toEqual({
      detail: expect.stringMatching(/--api-key needs --url/),
      code: "USAGE_ERROR"
    })
  })
})
