import { appRouter, catalogueOf } from "@fidelis/core"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import { annotationsOf } from "../packages/mcp/src/catalog.js"
import { connectMcp, createTenant, useServer } from "./support/index.js"

const server = useServer()

const post = async (headers: Record<string, string>) => {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
  })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

const HTTP_WORDING = /\bX-[A-Z][A-Za-z-]+|\bheaders?\b|\b(400|401|403|404|405|409|415|422|429)\b/

/** The shortest description a tool may have. */
const MIN_DESCRIPTION = 60

/** Every description a tool carries: its own and each of its parameters'. */
const parameters = (tool: Tool) => Object.entries((tool.inputSchema.properties ?? {}) as Record<string, any>)

const describedIn = (schema: any): string | undefined =>
  schema.description ?? (schema.anyOf as any[] | undefined)?.find((choice) => choice.description)?.description

describe("MCP tools worded for an assistant", () => {
  it("describes every parameter of every tool without HTTP words, hints following the retry-safety table", async () => {
    const tenant = await createTenant(server)
    const client = await connectMcp(server, tenant.key)
    const { tools } = await client.listTools()
    expect(tools.length).toBe(25)
    // An admin key also sees the management tools: they are worded by the same rules.
    const admin = await connectMcp(server, server.adminKey)
    const { tools: adminTools } = await admin.listTools()
    await admin.close()
    expect(adminTools.length).toBeGreaterThan(tools.length)
    const metaOf = new Map(catalogueOf(appRouter).flatMap(({ meta }) => (meta.tool ? [[meta.tool.name, meta]] : [])))
    // Every lapse at once, so one run names all the tools to reword.
    const lapses: string[] = []
    for (const tool of adminTools) {
      if (HTTP_WORDING.test(tool.description ?? "")) lapses.push(`${tool.name}: speaks HTTP`)
      // More than its title: what it answers, and what it refuses ("Get a client" was all get_client said).
      if ((tool.description ?? "").length < MIN_DESCRIPTION) lapses.push(`${tool.name}: says too little`)
      for (const [name, schema] of parameters(tool)) {
        const description = describedIn(schema)
        if (description === undefined) lapses.push(`${tool.name}.${name}: no description`)
        else if (HTTP_WORDING.test(description)) lapses.push(`${tool.name}.${name}: speaks HTTP`)
      }
      expect(tool.annotations, tool.name).toEqual(annotationsOf(metaOf.get(tool.name)!.tool!))
    }
    expect(lapses).toEqual([])
    const hints = new Map(tools.map((tool) => [tool.name, tool.annotations]))
    // The table's rows, checked by name: a retry of use_coupon is safe; of credit_points only with its key.
    expect(hints.get("use_coupon")).toMatchObject({ readOnlyHint: false, idempotentHint: true })
    expect(hints.get("credit_points")).toMatchObject({ readOnlyHint: false, idempotentHint: false })
    expect(hints.get("generate_coupon")).toMatchObject({ idempotentHint: false })
    expect(hints.get("list_clients")).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    expect(tools.find((tool) => tool.name === "credit_points")?.inputSchema.properties).toHaveProperty(
      "idempotency_key"
    )
    await client.close()
  })

  it("a wrong or missing key is a 401 whose challenge names no OAuth metadata and says to check the key", async () => {
    const wrong = await post({ "x-api-key": "fid_wrong" })
    expect(wrong.status).toBe(401)
    const challenge = wrong.headers.get("www-authenticate") ?? ""
    expect(challenge).toMatch(/^Bearer realm="fidelis", error="invalid_token", error_description="Check the .*API key/)
    expect(challenge).not.toContain("resource_metadata")
    expect(wrong.body.error.data).toMatchObject({ code: "UNAUTHENTICATED", request_id: expect.any(String) })

    const missing = await post({})
    expect(missing.status).toBe(401)
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer realm="fidelis", error_description=/)
  })
})
