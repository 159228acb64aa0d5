import { describe, expect, it } from "vitest"
import { call, createClient, createTenant, startServer, useServer, problem } from "./support/index.js"
import { WRITTEN_OPERATIONS } from "../packages/mcp/test/spec.js"

const server = useServer()

describe("operations endpoints", () => {
  it("healthz and readyz answer; every response echoes a request id", async () => {
    const health = await call(server, "/healthz")
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: "ok" })
    expect(health.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    const ready = await call(server, "/readyz", { headers: { "x-request-id": "trace-abc.1" } })
    expect(ready.body).toEqual({ status: "ready" })
    expect(ready.headers.get("x-request-id")).toBe("trace-abc.1")
    // An id that could smuggle content into logs is replaced, not echoed.
    const odd = await call(server, "/healthz", { headers: { "x-request-id": "a b<script>" } })
    expect(odd.headers.get("x-request-id")).not.toBe("a b<script>")
  })

  it("logs each request as a JSON line with its id", async () => {
    await call(server, "/healthz", { headers: { "x-request-id": "log-check-1" } })
    await new Promise((r) => setTimeout(r, 100))
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes('"log-check-1"'))
    expect(JSON.parse(line!)).toMatchObject({
      level: "info",
      message: "request",
      request_id: "log-check-1",
      status: 200,
      path: "/healthz"
    })
  })

  it("unknown paths are a JSON 404", async () => {
    const res = await call(server, "/nope")
    expect(res.status).toBe(404)
    expect(res.body).toEqual(problem("Not found: the API is under /api/v1, its reference at /docs", "ROUTE_NOT_FOUND"))
    const api = await call(server, "/api/v1/public/nope", { key: "x" })
    expect(api.status).toBe(404)
    expect(api.body).toEqual(problem(expect.any(String), "ROUTE_NOT_FOUND"))
    // `.` in `/openapi.json` is a dot: a look-alike path is not a route with the wrong method.
    const lookalike = await call(server, "/api/v1/public/openapiXjson", { key: "x" })
    expect(lookalike.status).toBe(404)
  })
})

describe("OpenAPI document and reference page", () => {
  const describesApi =
    "describes the company API as OpenAPI 3.1, version 1.5.0, with both security schemes and error bodies"
  it(describesApi, async () => {
    const res = await call(server, "/api/v1/public/openapi.json")
    expect(res.status).toBe(200)
    const doc = res.body
    expect(doc.openapi).toMatch(/^3\.1/)
    expect(doc.info.version).toBe("1.5.0")
    expect(doc.components.securitySchemes).toMatchObject({
      ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
      BearerAuth: { type: "http", scheme: "bearer" }
    })
    // Every spec 4.2 route written so far, with its request and response schemas.
    for (const { method, path } of WRITTEN_OPERATIONS) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toBeDefined()
      const success = Object.entries(operation.responses).find(([code]) => code.startsWith("2"))
      expect(success?.[1], `${method} ${path} response`).toMatchObject({
        content: { "application/json": { schema: expect.any(Object) } }
      })
      const params = (operation.parameters ?? []) as Array<{ in: string; name: string; schema: unknown }>
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(params, `${path} path parameter ${name}`).toContainEqual(expect.objectContaining({ in: "path", name }))
      }
      // A write whose only input is the path (use_coupon) has no body to describe.
      const bodyless = method === "get" || path === "/coupons/{uid}/use"
      const body = operation.requestBody?.content?.["application/json"]?.schema
      expect(bodyless || body !== undefined, `${method} ${path} request schema`).toBe(true)
    }
    const credit = doc.paths["/points/credit"].post
    expect(Object.keys(credit.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "409", "422", "429"])
    )
    expect(credit.responses["422"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/HTTPValidationError"
    )
    expect(credit.parameters).toContainEqual(expect.objectContaining({ name: "X-Idempotency-Key", in: "header" }))
    expect(doc.paths["/clients"].post.responses["201"]).toBeDefined()
    const internal = await call(server, "/api/v1/internal/openapi.json")
    expect(Object.keys(internal.body.paths)).toContain("/empresas")
  })

  it("serves a readable reference page and its assets locally", async () => {
    const page = await fetch(`${server.url}/docs`)
    expect(page.headers.get("content-type")).toMatch(/text\/html/)
    const html = await page.text()
    expect(html).toContain("/api/v1/public/openapi.json")
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/)
    const bundle = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`)
    expect(bundle.status).toBe(200)
    expect((await bundle.text()).length).toBeGreaterThan(100_000)
    const traversal = await fetch(`${server.url}/docs/assets/..%2Fpackage.json`)
    expect(traversal.status).toBe(404)
  })
})

describe("clients", () => {
  it("creates (201), lists newest first with paging and search, and gets one", async () => {
    const tenant = await createTenant(server)
    const created = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: { nome: "Ana Paula", email: "Ana.Paula@Example.com", telefone: "(11) 98765-4321", cpf: "529.982.247-25" }
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      nome: "Ana Paula",
      email: "ana.paula@example.com",
      telefone: "+5511987654321",
      cpf: "52998224725",
      pontos: 0
    })
    for (const nome of ["Bruno", "Carla", "Diego"]) await createClient(server, tenant, { nome })
    const page = await call(server, "/api/v1/public/clients?per_page=2", { key: tenant.key })
    expect(page.body).toMatchObject({ total: 4, page: 1, pages: 2, per_page: 2 })
    expect(page.body.data.map((c: { nome: string }) => c.nome)).toEqual(["Diego", "Carla"])
    const page2 = await call(server, "/api/v1/public/clients?per_page=2&page=2&sort=nome", { key: tenant.key })
    expect(page2.body.data.map((c: { nome: string }) => c.nome)).toEqual(["Carla", "Diego"])
    for (const search of ["ana", "EXAMPLE.com", "98765", "529982"]) {
      const found = await call(server, `/api/v1/public/clients?search=${encodeURIComponent(search)}`, {
        key: tenant.key
      })
      expect(
        found.body.data.map((c: { nome: string }) => c.nome),
        search
      ).toEqual(["Ana Paula"])
    }
    const literal = await call(server, "/api/v1/public/clients?search=%25", { key: tenant.key })
    expect(literal.body.total).toBe(0)
    const one = await call(server, `/api/v1/public/clients/${created.body.id}`, { key: tenant.key })
    expect(one.body).toEqual(created.body)
  })

  it("refuses a duplicate email or CPF in the same empresa with 409 CLIENT_EXISTS", async () => {
    const tenant = await createTenant(server)
    await createClient(server, tenant, { email: "dup@example.com", cpf: "52998224725" })
    const byEmail = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: { nome: "Y", email: "DUP@example.com" }
    })
    expect(byEmail.status).toBe(409)
    expect(byEmail.body.detail).toEqual({ code: "CLIENT_EXISTS", message: expect.any(String) })
    const byCpf = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: { nome: "Z", cpf: "52998224725" }
    })
    expect(byCpf.status).toBe(409)
    // The same person may be a client of another empresa.
    const other = await createTenant(server)
    const elsewhere = await call(server, "/api/v1/public/clients", {
      key: other.key,
      body: { nome: "Y", email: "dup@example.com" }
    })
    expect(elsewhere.status).toBe(201)
  })
})

describe("platform administration", () => {
  it("creates, reads and updates empresas; refuses duplicates and unknown ids", async () => {
    const created = await call(server, "/api/v1/internal/empresas", {
      key: server.adminKey,
      body: {
        name: "Padaria Boa",
        id_name: "padaria-boa",
        cnpj: "11.222.333/0001-81",
        settings: { timezone: "America/Manaus" }
      }
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      id_name: "padaria-boa",
      cnpj: "11222333000181",
      plan: "free",
      api_access: true
    })
    const dup = await call(server, "/api/v1/internal/empresas", {
      key: server.adminKey,
      body: { name: "Other", id_name: "padaria-boa" }
    })
    expect(dup.status).toBe(409)
    expect(dup.body.detail.code).toBe("ID_NAME_TAKEN")
    const patched = await call(server, `/api/v1/internal/empresas/${created.body.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { plan: "pro", settings: { point_value: 0.1 } }
    })
    expect(patched.body).toMatchObject({ plan: "pro", settings: { timezone: "America/Manaus", point_value: 0.1 } })
    const missing = await call(server, "/api/v1/internal/empresas/00000000-0000-4000-8000-000000000000", {
      key: server.adminKey
    })
    expect(missing.status).toBe(404)
    const invalid = await call(server, "/api/v1/internal/empresas", {
      key: server.adminKey,
      body: { name: "X", id_name: "Bad Slug", cnpj: "123", settings: { timezone: "Mars/Base", colour: "red" } }
    })
    expect(invalid.status).toBe(422)
    const locs = invalid.body.detail.map((d: { loc: string[] }) => d.loc.join("."))
    expect(locs).toEqual(
      expect.arrayContaining(["body.id_name", "body.cnpj", "body.settings.timezone", "body.settings.colour"])
    )
  })

  it("shows a key once, stores only its prefix, and lists keys without secrets", async () => {
    const tenant = await createTenant(server)
    const created = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, {
      key: server.adminKey,
      body: { name: "POS terminal" }
    })
    expect(created.status).toBe(201)
    expect(created.body.key).toMatch(/^fid_[A-Za-z0-9_-]{32}$/)
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true)
    expect(created.body.scope).toBe("empresa")
    const list = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: server.adminKey })
    expect(list.body).toHaveLength(2)
    expect(JSON.stringify(list.body)).not.toContain(created.body.key)
    const unknown = await call(server, "/api/v1/internal/api-keys/00000000-0000-4000-8000-000000000000", {
      method: "DELETE",
      key: server.adminKey
    })
    expect(unknown.status).toBe(404)
  })

  it("lets an admin-scope key act on one empresa's company API only when it names it", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const adminKey = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, {
      key: server.adminKey,
      body: { name: "support", scope: "admin" }
    })
    const unnamed = await call(server, `/api/v1/public/clients/${client.id}`, { key: adminKey.body.key })
    expect(unnamed.status).toBe(400)
    const named = await call(server, `/api/v1/public/clients/${client.id}`, {
      key: adminKey.body.key,
      headers: { "fidelis-empresa": tenant.empresa.id_name }
    })
    expect(named.status).toBe(200)
    // Company keys cannot use the header to reach another tenant.
    const other = await createTenant(server)
    const hop = await call(server, `/api/v1/public/clients/${client.id}`, {
      key: other.key,
      headers: { "fidelis-empresa": tenant.empresa.id }
    })
    expect(hop.status).toBe(404)
  })
})

describe("graceful shutdown", () => {
  it("finishes in-flight requests on SIGTERM, then exits 0", async () => {
    // A grace period far longer than any shutdown: stopping well before it shows nothing waited for it.
    const doomed = await startServer({ env: { FIDELIS_SHUTDOWN_GRACE_SECONDS: "120" } })
    const tenant = await createTenant(doomed)
    const client = await createClient(doomed, tenant)
    const inFlight = Array.from({ length: 10 }, (_, i) =>
      call(doomed, "/api/v1/public/points/credit", { key: tenant.key, body: { client_id: client.id, points: i + 1 } })
    )
    const settling = Promise.allSettled(inFlight)
    await new Promise((r) => setTimeout(r, 50))
    const started = Date.now()
    const exit = await doomed.stop()
    const stopMs = Date.now() - started
    const settled = await settling
    // Whatever was accepted before the signal completed; nothing was cut off half-way.
    const answered = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value.status] : []))
    expect(answered.length).toBeGreaterThan(0)
    expect(answered.every((status) => status === 200)).toBe(true)
    expect(exit).toEqual({ code: 0, signal: null })
    // Idle keep-alive connections do not hold the process until the grace period ends.
    expect(stopMs, doomed.output()).toBeLessThan(60_000)
    expect(doomed.output()).toContain('"message":"stopped"')
  })
})

describe("request bodies", () => {
  it("treats a write with no body as an empty object, and a non-JSON body as 415", async () => {
    const tenant = await createTenant(server)
    const empty = await fetch(`${server.url}/api/v1/public/points/credit`, {
      method: "POST",
      headers: { "x-api-key": tenant.key }
    })
    expect(empty.status).toBe(422)
    const detail = ((await empty.json()) as { detail: Array<{ loc: string[]; type: string }> }).detail
    expect(detail).toContainEqual(expect.objectContaining({ loc: ["body", "client_id"], type: "missing" }))
    const text = await fetch(`${server.url}/api/v1/public/points/credit`, {
      method: "POST",
      headers: { "x-api-key": tenant.key, "content-type": "text/plain" },
      body: "points=5"
    })
    expect(text.status).toBe(415)
    expect(await text.json()).toEqual(problem(expect.any(String), "UNSUPPORTED_MEDIA_TYPE"))
  })
})

describe("query strings", () => {
  it("treats names an object inherits as unknown parameters, not as a crash", async () => {
    const tenant = await createTenant(server)
    for (const name of ["constructor", "toString", "hasOwnProperty"]) {
      const res = await call(server, `/api/v1/public/quests?${name}=1&${name}=2`, { key: tenant.key })
      expect(res.status, name).toBe(422)
      expect(res.body.detail).toEqual([{ loc: ["query", name], msg: expect.any(String), type: "extra_forbidden" }])
    }
    // The library copies the query into a plain object, where `__proto__` is no own property: ignored.
    expect((await call(server, "/api/v1/public/quests?__proto__=1", { key: tenant.key })).status).toBe(200)
  })
})

describe("instants", () => {
  const unstorable =
    "refuses year 0000 and offsets beyond ±15:59 with 422 wherever an instant is taken, " +
    "since the database cannot store them"
  it(unstorable, async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const product = await call(server, "/api/v1/public/products", {
      key: tenant.key,
      body: { name: "Caneca", points_cost: 10 }
    })
    const research = { fields: [{ id: "nota", type: "text", label: "Nota?" }] }
    for (const instant of ["0000-01-01T00:00:00Z", "2030-01-01T00:00:00+16:00", "2030-01-01T00:00:00-23:59"]) {
      const cases = [
        [
          "/referrals/campaigns",
          { name: "C", referrer_bonus: 1, referred_bonus: 1, active: false, ends_at: instant },
          ["body", "ends_at"]
        ],
        ["/quests", { name: "Q", research, valid_until: instant }, ["body", "valid_until"]],
        ["/rewards", { product_id: product.body.id, expires_at: instant }, ["body", "expires_at"]],
        [`/clients/${client.id}/timeline?from=${encodeURIComponent(instant)}`, undefined, ["query", "from"]]
      ] as const
      for (const [path, body, loc] of cases) {
        const res = await call(server, `/api/v1/public${path}`, {
          key: tenant.key,
          ...(body !== undefined ? { body } : {})
        })
        expect(res.status, `${path} ${instant}`).toBe(422)
        expect(res.body.detail).toContainEqual(expect.objectContaining({ loc }))
      }
    }
    const fine = await call(server, "/api/v1/public/quests", {
      key: tenant.key,
      body: { name: "Q", research, valid_until: "2030-01-01T00:00:00+14:00" }
    })
    expect(fine.status).toBe(201)
  })
})

describe("lone surrogates", () => {
  it("store as U+FFFD in JSON columns as in text ones, instead of failing", async () => {
    const tenant = await createTenant(server)
    const research = { fields: [{ id: "nota", type: "text", label: "Nota\uD800?" }] }
    const quest = await call(server, "/api/v1/public/quests", { key: tenant.key, body: { name: "Q\uD800", research } })
    expect(quest.status).toBe(201)
    expect(quest.body).toMatchObject({ name: "Q\uFFFD", research: { fields: [{ label: "Nota\uFFFD?" }] } })
    const settings = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings: { logo_url: "https://example.com/\uDC00.png" } }
    })
    expect(settings.status).toBe(200)
  })
})
