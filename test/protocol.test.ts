import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import { call, useMcp, useServer, useTenant } from "./support/index.js"

const server = useServer()
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
