import { internalApiRouter, publicApiRouter, REFUSALS, type ProcedureMeta, type RefusalCode } from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import { describe, expect, it } from "vitest"
import { call, useServer } from "./support/index.js"

const server = useServer()

type Procedures = Record<string, { _def: { meta?: ProcedureMeta } }>

const DOCUMENTS: ReadonlyArray<{ url: string; router: AnyRouter }> = [
  { url: "/api/v1/public/openapi.json", router: publicApiRouter },
  { url: "/api/v1/internal/openapi.json", router: internalApiRouter }
]

/** Every REST route of both documents: its metadata and the responses the served document lists. */
const routes = async () => {
  const found: Array<{ route: string; meta: ProcedureMeta; responses: Record<string, any> }> = []
  for (const { url, router } of DOCUMENTS) {
    const doc = (await call(server, url)).body
    for (const procedure of Object.values(router._def.procedures as Procedures)) {
      const meta = procedure._def.meta
      if (meta?.openapi === undefined) continue
      const route = `${meta.openapi.method} ${meta.openapi.path}`
      const operation = doc.paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()]
      expect(operation, route).toBeDefined()
      found.push({ route, meta, responses: operation.responses })
    }
  }
  return found
}

const codesOf = (meta: ProcedureMeta) => (meta.refusals ?? []).filter((r): r is RefusalCode => r !== "NOT_FOUND")

describe("OpenAPI documents list the refusals each procedure declares", () => {
  it("404 exactly when declared; 409 naming and describing each declared code, for people and generators", async () => {
    const all = await routes()
    expect(all.length).toBeGreaterThan(40)
    for (const { route, meta, responses } of all) {
      expect(responses["404"] !== undefined, `${route} 404`).toBe(meta.refusals?.includes("NOT_FOUND") ?? false)
      expect(responses["409"] !== undefined, `${route} 409`).toBe(codesOf(meta).length > 0)
    }
    for (const { route, meta, responses } of all.filter((r) => codesOf(r.meta).length > 0)) {
      const codes = codesOf(meta)
      const conflict = responses["409"]
      const schema = conflict.content["application/json"].schema
      expect(schema.allOf, route).toEqual([{ $ref: "#/components/schemas/ConflictProblem" }])
      expect(schema.properties.detail.properties.code.oneOf, route).toEqual(
        codes.map((code) => ({ const: code, description: REFUSALS[code] }))
      )
      for (const code of codes) expect(conflict.description, route).toContain(`\`${code}\`: ${REFUSALS[code]}`)
    }
  })

  it("the scope's refusals (400/401/403/429) and 422 for input, on every authenticated route", async () => {
    for (const { route, meta, responses } of await routes()) {
      expect(meta.scope, route).not.toBe("public")
      expect(Object.keys(responses), route).toEqual(expect.arrayContaining(["400", "401", "403", "422", "429", "500"]))
      expect(responses["429"].headers["Retry-After"], route).toBeDefined()
    }
  })

  it("names what the handlers can refuse, and nothing they cannot", async () => {
    const byRoute = new Map((await routes()).map(({ route, meta }) => [route, meta.refusals]))
    expect(byRoute.get("POST /coupons/generate")).toEqual([
      "NOT_FOUND",
      "INSUFFICIENT_POINTS",
      "OUT_OF_STOCK",
      "PRODUCT_INACTIVE",
      "IDEMPOTENCY_IN_FLIGHT"
    ])
    // Using a used coupon answers it unchanged: COUPON_USED is a refusal of cancel only.
    expect(byRoute.get("PATCH /coupons/{uid}/use")).toEqual(["NOT_FOUND", "COUPON_EXPIRED", "COUPON_CANCELLED"])
    expect(byRoute.get("POST /coupons/{uid}/cancel")).toEqual(["NOT_FOUND", "COUPON_USED", "COUPON_EXPIRED"])
    expect(byRoute.get("GET /clients")).toBeUndefined()
    expect(byRoute.get("POST /empresas")).toEqual(["ID_NAME_TAKEN", "CNPJ_TAKEN"])
  })
})
