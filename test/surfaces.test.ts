import { createFidelisClient } from "@fidelis/core/client"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import { balanceOf, call, createClient, creditPoints, useMcp, useServer, useTenant } from "./support/index.js"

const server = useServer()
const tenant = useTenant(server)
const mcp = useMcp(server, tenant)

const cli = (...args: string[]) => fidelis([...args, "--url", server.url], { FIDELIS_API_KEY: tenant.key })

describe("one procedure, four surfaces", () => {
  it("get_points_balance answers identically over REST, tRPC, MCP tools/call and the CLI", async () => {
    const client = await createClient(server, tenant)
    await creditPoints(server, tenant, client.id, 33)
    const expected = { client_id: client.id, balance: 33, empresa_id: tenant.empresa.id }

    const rest = await call(server, `/api/v1/public/points/${client.id}`, { key: tenant.key })
    const trpc = await createFidelisClient({ url: server.url, apiKey: tenant.key }).points.balance.query({
      client_id: client.id
    })
    const tool = (await mcp.callTool({
      name: "get_points_balance",
      arguments: { client_id: client.id }
    })) as CallToolResult
    const shell = await cli("points", "balance", client.id, "--json")

    expect(rest.body).toEqual(expected)
    expect(trpc).toEqual(expected)
    expect(tool.isError).toBeFalsy()
    expect(tool.structuredContent).toEqual(expected)
    expect(JSON.parse((tool.content[0] as { text: string }).text)).toEqual(expected)
    expect(shell.code).toBe(0)
    expect(JSON.parse(shell.stdout)).toEqual(expected)
  })

  it("invalid input is refused everywhere with the documented error, and changes nothing", async () => {
    const client = await createClient(server, tenant)
    const bad = { client_id: client.id, points: -3 }

    const rest = await call(server, "/api/v1/public/points/credit", { key: tenant.key, body: bad })
    expect(rest.status).toBe(422)
    expect(rest.body.detail).toEqual([{ loc: ["body", "points"], msg: expect.any(String), type: "greater_than_equal" }])

    const trpcError = await createFidelisClient({ url: server.url, apiKey: tenant.key })
      .points.credit.mutate(bad)
      .catch((e: unknown) => e)
    expect(trpcError).toBeInstanceOf(TRPCClientError)
    expect((trpcError as TRPCClientError<never>).data).toMatchObject({ httpStatus: 422, detail: rest.body.detail })

    const tool = (await mcp.callTool({ name: "credit_points", arguments: bad })) as CallToolResult
    expect(tool.isError).toBe(true)
    expect((tool.content[0] as { text: string }).text).toMatch(/points/)

    const shell = await cli("points", "credit", "--client-id", client.id, "--points", "-3")
    expect(shell.code).toBe(2)
    expect(shell.stderr.trim().split("\n")).toHaveLength(1)
    expect(shell.stderr).toMatch(/body\.points.*\(422\)/)

    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })
})
