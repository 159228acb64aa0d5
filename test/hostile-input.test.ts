import { createFidelisClient } from "@fidelis/core/client"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { balanceOf, call, createClient, useMcp, useServer, useTenant } from "./support/index.js"

/**
 * Regressions from the outside probe (issue 10): inputs that reached the database and came back
 * as 500s. Each is refused where it arrives, with a 422 naming the field, on every surface.
 */

const server = useServer()
const tenant = useTenant(server)
const mcp = useMcp(server, tenant)

const trpc = () => createFidelisClient({ url: server.url, apiKey: tenant.key })
const trpcFailure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a refusal")
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(TRPCClientError)
      return (error as TRPCClientError<never>).data as unknown as { httpStatus: number; detail: unknown }
    }
  )
const toolText = (result: unknown) => {
  const tool = result as CallToolResult
  expect(tool.isError).toBe(true)
  return (tool.content[0] as { text: string }).text
}
const nulIssue = (...loc: Array<string | number>) => ({
  loc,
  msg: expect.stringMatching(/NUL/),
  type: "string_nul_character"
})

describe("a NUL character in a string is a 422 naming the field, on every surface", () => {
  it("REST: body fields, object keys and query parameters", async () => {
    const created = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: { nome: "Ana\u0000Maria", email: "ana@example.com" }
    })
    expect(created.status).toBe(422)
    expect(created.body.detail).toEqual([nulIssue("body", "nome")])

    const product = await call(server, "/api/v1/public/products", {
      key: tenant.key,
      body: { name: "Café", points_cost: 10, ["des\u0000cription"]: "x" }
    })
    expect(product.status).toBe(422)
    expect(product.body.detail).toEqual([nulIssue("body", "des\u0000cription")])

    const search = await call(server, "/api/v1/public/clients?search=%00", { key: tenant.key })
    expect(search.status).toBe(422)
    expect(search.body.detail).toEqual([nulIssue("query", "search")])

    const list = await call(server, "/api/v1/public/clients", { key: tenant.key })
    expect(list.body.total).toBe(0)
  })

  it("tRPC and MCP: the same refusal, and nothing is written", async () => {
    const client = await createClient(server, tenant)
    const data = await trpcFailure(
      trpc().points.credit.mutate({ client_id: client.id, points: 5, description: "a\u0000b" })
    )
    expect(data).toMatchObject({ httpStatus: 422, detail: [nulIssue("body", "description")] })

    const text = toolText(
      await mcp.callTool({
        name: "credit_points",
        arguments: { client_id: client.id, points: 5, description: "a\u0000b" }
      })
    )
    expect(text).toMatch(/description: Must not contain the NUL character/)

    const key = toolText(
      await mcp.callTool({
        name: "credit_points",
        arguments: { client_id: client.id, points: 5, idempotency_key: "k\u0000" }
      })
    )
    expect(key).toMatch(/idempotency_key: Must not contain the NUL character/)

    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })

  it("a deeply nested hostile body is walked without overflowing the stack", async () => {
    const deep = `${"[".repeat(50_000)}"\\u0000"${"]".repeat(50_000)}`
    const res = await call(server, "/api/v1/public/clients", {
      key: tenant.key,
      body: `{"nome": "Ana", "tags": ${deep}}`
    })
    expect(res.status).toBe(422)
  })
})

describe("time zones are the database's, not only Node's", () => {
  it("refuses a zone Node accepts and Postgres does not, when creating or updating an empresa", async () => {
    expect(Intl.DateTimeFormat("en", { timeZone: "US/Pacific-New" }).resolvedOptions().timeZone).toBeTruthy()
    const body = { name: "Fuso", id_name: `fuso-${Date.now()}`, settings: { timezone: "US/Pacific-New" } }
    const created = await call(server, "/api/v1/internal/empresas", { key: server.adminKey, body })
    expect(created.status).toBe(422)
    expect(created.body.detail).toEqual([
      {
        loc: ["body", "settings", "timezone"],
        msg: expect.stringMatching(/US\/Pacific-New.*IANA/),
        type: "value_error"
      }
    ])

    const updated = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings: { timezone: "US/Pacific-New" } }
    })
    expect(updated.status).toBe(422)
    const metrics = await call(server, "/api/v1/public/metrics/overview", { key: tenant.key })
    expect(metrics.status).toBe(200)
    expect(metrics.body.timezone).toBe("America/Sao_Paulo")
  })

  it("stores a known zone as the database spells it", async () => {
    const updated = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { settings: { timezone: "america/manaus" } }
    })
    expect(updated.status).toBe(200)
    expect(updated.body.settings.timezone).toBe("America/Manaus")
    const metrics = await call(server, "/api/v1/public/metrics/overview", { key: tenant.key })
    expect(metrics.body.timezone).toBe("America/Manaus")
  })
})

describe("an empty category list on the timeline", () => {
  it("is a 422 on tRPC and MCP as on REST, naming the field", async () => {
    const client = await createClient(server, tenant)
    const data = await trpcFailure(trpc().clients.timeline.query({ client_id: client.id, category: [] }))
    expect(data).toMatchObject({ httpStatus: 422, detail: [{ loc: ["query", "category"], type: "too_short" }] })

    const text = toolText(
      await mcp.callTool({ name: "get_client_timeline", arguments: { client_id: client.id, category: [] } })
    )
    expect(text).toMatch(/category: Give at least one category/)

    const one = await trpc().clients.timeline.query({ client_id: client.id, category: ["purchase"] })
    expect(one.data).toEqual([])
  })
})
