import { randomUUID } from "node:crypto"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import { call, connectMcp, createClient, createProgram, createTenant, issueCard, useServer } from "./support/index.js"
import { COMPANY_TOOLS } from "../packages/mcp/test/spec.js"

const server = useServer()

const UUID = /^[0-9a-f-]{36}$/
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)

/**
 * The SDK client as an assistant host runs it. Listing the tools first matters: the client then
 * checks every structuredContent against the tool's output schema and rejects a mismatch.
 */
const connect = async (key: string) => {
  const client = await connectMcp(server, key)
  const { tools } = await client.listTools()
  return { client, tools: tools.map((tool) => tool.name).toSorted() }
}

describe("every company tool through the SDK client, on seeded data", () => {
  it("lists the spec's 25 tools and answers each with its documented structure", async () => {
    // Budget (60 a minute per key): 3 REST seeds + connect (2) + list (1) + 25 calls.
    const tenant = await createTenant(server)
    const other = await createClient(server, tenant, { nome: "Bruno Lima" })
    // REST seeding for what no spec tool creates; each call costs one request of the key's budget.
    const program = await createProgram(server, tenant, {
      name: "Cartão Café",
      stamps_required: 5,
      reward_description: "Um café grátis"
    })
    const card = await issueCard(server, tenant, other.id, program.id)

    const { client, tools } = await connect(tenant.key)
    const results = new Map<string, CallToolResult>()
    const run = async (name: string, args: Record<string, unknown> = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false)
      results.set(name, result)
      return result.structuredContent as any
    }
    try {
      expect(tools).toEqual(COMPANY_TOOLS)

      const created = await run("create_client", { nome: "Ana Souza", email: "ana@example.com" })
      expect(created).toMatchObject({
        id: expect.stringMatching(UUID),
        nome: "Ana Souza",
        email: "ana@example.com",
        pontos: 0
      })
      const clientId = created.id as string

      expect(await run("credit_points", { client_id: clientId, points: 500, idempotency_key: "sale-1" })).toMatchObject(
        {
          client_id: clientId,
          balance: 500,
          credited: 500,
          transaction_id: expect.stringMatching(UUID)
        }
      )
      expect(await run("get_points_balance", { client_id: clientId })).toEqual({
        client_id: clientId,
        balance: 500,
        empresa_id: tenant.empresa.id
      })
      expect(await run("get_client", { client_id: clientId })).toMatchObject({
        id: clientId,
        pontos: 500,
        created_at: TIMESTAMP
      })
      const page = await run("list_clients", { search: "Ana" })
      expect(page).toMatchObject({ total: 1, page: 1, pages: 1 })
      expect(page.data.map((row: { id: string }) => row.id)).toEqual([clientId])

      const product = await run("create_product", { name: "Caneca", points_cost: 200, stock: 3, category: "Brindes" })
      expect(product).toMatchObject({
        id: expect.stringMatching(UUID),
        name: "Caneca",
        points_cost: 200,
        stock: 3,
        active: true
      })
      expect(await run("update_product", { product_id: product.id, points_cost: 150 })).toMatchObject({
        id: product.id,
        points_cost: 150
      })
      expect((await run("list_products")).items).toEqual([
        expect.objectContaining({ id: product.id, points_cost: 150 })
      ])
      expect((await run("list_rewards")).items).toEqual(expect.any(Array))

      const coupon = await run("generate_coupon", {
        client_id: clientId,
        product_id: product.id,
        idempotency_key: "coupon-1"
      })
      expect(coupon).toMatchObject({
        uid: expect.stringMatching(/^[A-Z2-9]{8}$/),
        status: "active",
        kind: "product",
        points_spent: 150,
        client_id: clientId,
        product_id: product.id,
        product_name: "Caneca"
      })
      expect(await run("get_coupon", { uid: coupon.uid.toLowerCase() })).toMatchObject({
        id: coupon.id,
        status: "active"
      })
      expect(await run("use_coupon", { uid: coupon.uid })).toMatchObject({
        id: coupon.id,
        status: "used",
        used_at: TIMESTAMP
      })

      expect(await run("stamp_loyalty_card", { card_id: card.id, quantity: 2 })).toMatchObject({
        card_id: card.id,
        client_id: other.id,
        program_id: program.id,
        stamps: 2,
        max_stamps: 5,
        completed: false,
        stamped: 2
      })
      expect((await run("list_loyalty_cards", { client_id: other.id })).items).toEqual([
        expect.objectContaining({ id: card.id, stamps: 2, program_name: "Cartão Café" })
      ])
      expect((await run("list_loyalty_card_programs", { active: true })).items).toEqual([
        expect.objectContaining({ id: program.id, stamps_required: 5 })
      ])
      expect(await run("get_loyalty_card_metrics", { program_id: program.id })).toMatchObject({
        program_id: program.id,
        cards_issued: 1,
        cards_active: 1
      })

      const timeline = await run("get_client_timeline", { client_id: clientId })
      expect(timeline.total).toBeGreaterThanOrEqual(2)
      expect(await run("get_client_behavior", { client_id: clientId, days: 30 })).toMatchObject({
        client_id: clientId,
        nome: "Ana Souza",
        period_days: 30
      })
      expect(await run("get_metrics_overview", { days: 7 })).toMatchObject({
        period_days: 7,
        timezone: expect.any(String)
      })
      expect(await run("get_referral_performance")).toMatchObject({ referrals_made: 0, top_referrers: [] })
      expect(await run("get_referral_metrics", { group_by: "week" })).toMatchObject({ group_by: "week", referrals: 0 })
      expect(await run("list_referral_campaigns")).toEqual({ items: [] })
      // Every empresa starts with the standard satisfaction quest.
      expect((await run("list_quests")).items).toEqual([
        expect.objectContaining({ id: expect.stringMatching(UUID), survey_type: "standard_csat_nps" })
      ])
      expect(await run("get_quest_metrics")).toMatchObject({ responses: 0 })
      expect(await run("get_nfce_metrics")).toMatchObject({ invoices_scanned: 0, points_credited: 0 })

      expect([...results.keys()].toSorted()).toEqual(COMPANY_TOOLS)
      // The text content mirrors the structure, for hosts that ignore structuredContent.
      for (const [name, result] of results) {
        expect(JSON.parse((result.content[0] as { text: string }).text), name).toEqual(result.structuredContent)
      }
    } finally {
      await client.close()
    }
  })
})

/** One bad argument per tool, and the argument name the error must give back to the assistant. */
const INVALID: ReadonlyArray<readonly [tool: string, args: Record<string, unknown>, field: string]> = [
  ["list_clients", { per_page: 0 }, "per_page"],
  ["get_client", { client_id: "not-a-uuid" }, "client_id"],
  ["create_client", { email: "ana@example.com" }, "nome"],
  ["get_client_behavior", { client_id: "not-a-uuid" }, "client_id"],
  ["get_client_timeline", { client_id: randomUUID(), page: 0 }, "page"],
  ["get_referral_performance", { days: -1 }, "days"],
  ["get_points_balance", { client_id: 42 }, "client_id"],
  ["credit_points", { client_id: randomUUID(), points: 0 }, "points"],
  ["generate_coupon", { client_id: randomUUID() }, "points"],
  ["get_coupon", { uid: "" }, "uid"],
  ["use_coupon", {}, "uid"],
  ["stamp_loyalty_card", { card_id: randomUUID(), quantity: 0 }, "quantity"],
  ["list_products", { include_unavailable: "maybe" }, "include_unavailable"],
  ["create_product", { name: "Caneca", points_cost: -1 }, "points_cost"],
  ["update_product", { product_id: "not-a-uuid", name: "Caneca" }, "product_id"],
  ["list_rewards", { product_id: "not-a-uuid" }, "product_id"],
  ["list_loyalty_cards", { limit: 0 }, "limit"],
  ["get_metrics_overview", { days: -1 }, "days"],
  ["list_loyalty_card_programs", { active: "maybe" }, "active"],
  ["get_loyalty_card_metrics", { group_by: "century" }, "group_by"],
  ["list_referral_campaigns", { surprise: 1 }, "surprise"],
  ["get_referral_metrics", { group_by: "century" }, "group_by"],
  ["list_quests", { surprise: 1 }, "surprise"],
  ["get_quest_metrics", { quest_id: "not-a-uuid" }, "quest_id"],
  ["get_nfce_metrics", { days: -1 }, "days"]
]

describe("every company tool refuses invalid arguments as a tool error naming the field", () => {
  it("covers all 25 tools", () => {
    expect(INVALID.map(([tool]) => tool).toSorted()).toEqual(COMPANY_TOOLS)
  })

  it("answers isError with the argument's name, and changes nothing", async () => {
    // Budget: connect (2) + list (1) + 25 calls + 2 REST reads, on a fresh key.
    const tenant = await createTenant(server)
    const { client } = await connect(tenant.key)
    try {
      for (const [tool, args, field] of INVALID) {
        const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult
        expect(result.isError, tool).toBe(true)
        expect(result.structuredContent, tool).toBeUndefined()
        const text = (result.content[0] as { text: string }).text
        expect(text, tool).toMatch(/^Invalid arguments; nothing was changed\./)
        expect(text, tool).toContain(field)
      }
    } finally {
      await client.close()
    }
    const clients = await call(server, "/api/v1/public/clients", { key: tenant.key })
    expect(clients.body.total).toBe(0)
    const products = await call(server, "/api/v1/public/products?include_unavailable=true", { key: tenant.key })
    expect(products.body).toEqual([])
  })
})
