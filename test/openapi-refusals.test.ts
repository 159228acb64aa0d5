import {
  internalApiRouter,
  isRefusalCode,
  PLAIN_REFUSALS,
  publicApiRouter,
  REFUSALS,
  type ProcedureMeta
} from "@fidelis/core"
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
  const found: Array<{ route: string; meta: ProcedureMeta; responses: Record<string, any>; takesInput: boolean }> = []
  for (const { url, router } of DOCUMENTS) {
    const doc = (await call(server, url)).body
    for (const procedure of Object.values(router._def.procedures as Procedures)) {
      const meta = procedure._def.meta
      if (meta?.openapi === undefined) continue
      const route = `${meta.openapi.method} ${meta.openapi.path}`
      const operation = doc.paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()]
      expect(operation, route).toBeDefined()
      const takesInput = (operation.parameters ?? []).length > 0 || operation.requestBody !== undefined
      found.push({ route, meta, responses: operation.responses, takesInput })
    }
  }
  return found
}

const codesOf = (meta: ProcedureMeta) => (meta.refusals ?? []).filter(isRefusalCode)

describe("OpenAPI documents list the refusals each procedure declares", () => {
  it("404 exactly when declared; 409 naming and describing each declared code, for people and generators", async () => {
    const all = await routes()
    expect(all.length).toBeGreaterThan(40)
    for (const { route, meta, responses } of all) {
      expect(responses["404"] !== undefined, `${route} 404`).toBe(meta.refusals?.includes("NOT_FOUND") ?? false)
      expect(responses["409"] !== undefined, `${route} 409`).toBe(codesOf(meta).length > 0)
    }
    for (const { route, meta, responses } of all) {
      expect(responses["400"] !== undefined, `${route} 400`).toBe(
        meta.scope !== "public" || (meta.refusals?.includes("BAD_REQUEST") ?? false)
      )
    }
    const structured = all.filter((r) => codesOf(r.meta).some((code) => !PLAIN_REFUSALS.has(code)))
    for (const { route, meta, responses } of structured) {
      const codes = codesOf(meta)
      const conflict = responses["409"]
      const schema = conflict.content["application/json"].schema
      expect(schema.allOf, route).toEqual([{ $ref: "#/components/schemas/ConflictProblem" }])
      const choices = codes.map((code) => ({ const: code, description: REFUSALS[code] }))
      // A single code is the schema itself: `oneOf` of one is what Redocly's strict rules refuse.
      expect(schema.properties.detail.properties.code, route).toEqual(
        choices.length === 1 ? choices[0] : { oneOf: choices }
      )
      for (const code of codes) expect(conflict.description, route).toContain(`\`${code}\`: ${REFUSALS[code]}`)
    }
  })

  it("the scope's refusals (400/401/403/429) and 422 for input, on every authenticated route", async () => {
    const all = await routes()
    for (const { route, responses, takesInput } of all.filter(({ meta }) => meta.scope !== "public")) {
      expect(Object.keys(responses), route).toEqual(expect.arrayContaining(["400", "401", "403", "429", "500"]))
      // A route that takes nothing has nothing to find invalid.
      expect(!takesInput || "422" in responses, route).toBe(true)
      expect(responses["429"].headers["Retry-After"], route).toBeDefined()
    }
    // Public routes have no credentials to refuse; every one counts per client address, so lists its 429.
    const open = all.filter(({ meta }) => meta.scope === "public")
    expect(open.map(({ route }) => route)).toEqual(expect.arrayContaining(["GET /email/click/{token}"]))
    for (const { route, responses } of open) {
      expect(Object.keys(responses), route).not.toEqual(expect.arrayContaining(["401"]))
      expect(responses["429"]?.headers["Retry-After"], route).toBeDefined()
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

const schemaOf = (response: any) => response.content["application/json"].schema

describe("the public survey routes in the OpenAPI document (spec 4.3, 7.2)", () => {
  const PUBLIC_ROUTES = [
    "GET /quests/{estabelecimento_ref}/active",
    "POST /quests/{estabelecimento_ref}/{quest_id}/responses",
    "PATCH /quests/{estabelecimento_ref}/{response_id}/contact"
  ]

  it("lists the three routes, keyless, with their schemas and spec 7.2's error bodies", async () => {
    const doc = (await call(server, "/api/v1/public/openapi.json")).body
    const publicRoutes = (await routes()).filter((r) => r.meta.scope === "public" && r.route.includes("/quests/"))
    expect(publicRoutes.map((r) => r.route).toSorted()).toEqual(PUBLIC_ROUTES.toSorted())
    const operation = (route: string) => {
      const [method, path] = route.split(" ") as [string, string]
      return doc.paths[path][method.toLowerCase()]
    }
    const resolve = (schema: any): any =>
      schema.$ref === undefined ? schema : doc.components.schemas[schema.$ref.split("/").at(-1)]
    for (const route of PUBLIC_ROUTES) {
      const { security, responses } = operation(route)
      expect(security, route).toEqual([])
      expect(Object.keys(responses), route).not.toContain("401")
      expect(Object.keys(responses), route).not.toContain("403")
      expect(resolve(schemaOf(responses["404"])), route).toEqual(doc.components.schemas.Problem)
      expect(responses["429"].headers["Retry-After"], route).toBeDefined()
      expect(resolve(schemaOf(responses["429"])).properties.detail.properties.error).toEqual({
        type: "string",
        const: "RATE_LIMIT_EXCEEDED"
      })
    }

    const active = resolve(schemaOf(operation(PUBLIC_ROUTES[0]!).responses["200"]))
    expect(Object.keys(active.properties).toSorted()).toEqual(
      [
        "quest_id",
        "empresa_id",
        "survey_type",
        "estabelecimento_slug",
        "estabelecimento_nome",
        "name",
        "description",
        "research",
        "valid_until",
        "cta_review_configured",
        "profile_picture",
        "primary_color"
      ].toSorted()
    )

    const respond = operation(PUBLIC_ROUTES[1]!)
    expect(Object.keys(respond.responses)).toEqual(expect.arrayContaining(["201", "400", "404", "409", "422", "429"]))
    expect(resolve(schemaOf(respond.responses["409"]))).toEqual(doc.components.schemas.Problem)
    expect(resolve(schemaOf(respond.responses["400"]))).toEqual(doc.components.schemas.Problem)
    expect(respond.requestBody.content["application/json"].schema.required).toEqual(["response"])
    expect(respond.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "X-Idempotency-Key", in: "header", description: expect.stringMatching(/409/) })
      ])
    )
    expect(Object.keys(resolve(schemaOf(respond.responses["201"])).properties).toSorted()).toEqual(
      [
        "response_id",
        "quest_id",
        "empresa_id",
        "submitted_at",
        "cta_review_enabled",
        "cta_review_url",
        "low_score_alert_sent"
      ].toSorted()
    )

    const contact = operation(PUBLIC_ROUTES[2]!)
    const body = contact.requestBody.content["application/json"].schema
    expect(body.properties.client_name.anyOf ?? [body.properties.client_name]).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "string", maxLength: 120 })])
    )
    expect(body.properties.client_phone.anyOf ?? [body.properties.client_phone]).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "string", maxLength: 30 })])
    )
    expect(Object.keys(contact.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "422", "429"]))
    const result = resolve(schemaOf(contact.responses["200"]))
    expect(result.properties.referral_invite.description).toMatch(/referral link is emailed/)
    expect(Object.keys(result.properties)).toEqual(
      expect.arrayContaining(["success", "response_id", "client_name", "client_phone", "referral_invite"])
    )
    expect(Object.keys(result.properties)).not.toContain("referral_code")
  })
})

describe("what a newcomer opens first", () => {
  it("GET / redirects to /docs, and each document names its base path, relative to where it is served", async () => {
    const root = await fetch(`${server.url}/`, { redirect: "manual" })
    expect(root.status).toBe(302)
    expect(root.headers.get("location")).toBe("/docs")
    for (const { url } of DOCUMENTS) {
      const doc = (await call(server, url)).body
      expect(doc.servers).toEqual([{ url: url.replace("/openapi.json", "") }])
    }
  })
})

describe("issue 15's refusals in the served documents", () => {
  // Written out, not read from the routers: a code dropped from a procedure's declaration must fail here.
  const VALIDATE: Array<keyof typeof REFUSALS> = ["REDEMPTION_VALIDATED", "REDEMPTION_EXPIRED", "REDEMPTION_CANCELLED"]
  const CANCEL: Array<keyof typeof REFUSALS> = [...VALIDATE, "REDEMPTION_NOT_CANCELLABLE"]
  const COUPON: Array<keyof typeof REFUSALS> = ["COUPON_USED", "COUPON_EXPIRED", "COUPON_CANCELLED"]
  const EXPECTED: Array<{ document: string; route: string; codes: Array<keyof typeof REFUSALS> }> = [
    { document: "/api/v1/public/openapi.json", route: "POST /redemptions/validate", codes: VALIDATE },
    { document: "/api/v1/public/openapi.json", route: "POST /redemptions/{redemption_id}/cancel", codes: CANCEL },
    { document: "/api/v1/openapi.json", route: "POST /admin/redemptions/validate", codes: VALIDATE },
    { document: "/api/v1/openapi.json", route: "POST /redemptions/{redemption_id}/cancel", codes: CANCEL },
    {
      document: "/api/v1/openapi.json",
      route: "POST /rewards/{reward_uid}/redeem",
      codes: ["REWARD_INACTIVE", "REWARD_EXPIRED", "OUT_OF_STOCK", "INSUFFICIENT_POINTS", "REDEMPTION_LIMIT_REACHED"]
    },
    {
      document: "/api/v1/openapi.json",
      route: "POST /cart/checkout",
      codes: ["CART_CHECKED_OUT", "CART_EMPTY", "INSUFFICIENT_POINTS", "OUT_OF_STOCK", "PRODUCT_INACTIVE", ...COUPON]
    }
  ]

  it("redeem, cancel, validate and checkout list each 409 code with its description", async () => {
    for (const { document, route, codes } of EXPECTED) {
      const doc = (await call(server, document)).body
      const [method, path] = route.split(" ") as [string, string]
      const conflict = doc.paths[path]?.[method.toLowerCase()]?.responses["409"]
      const listed = conflict?.content["application/json"].schema.properties.detail.properties.code.oneOf
      expect(listed?.map((choice: { const: string }) => choice.const).toSorted(), `${document} ${route}`).toEqual(
        codes.toSorted()
      )
      for (const code of codes) expect(conflict.description, route).toContain(`\`${code}\`: ${REFUSALS[code]}`)
    }
  })
})
