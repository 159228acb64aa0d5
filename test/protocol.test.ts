import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import { call, useMcp, useServer, useTenant } from "./support/index.js"

// A cheap password hash: the login refusals below hash a decoy.
const server = useServer({ env: { FIDELIS_PASSWORD_COST: "10" } })
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
