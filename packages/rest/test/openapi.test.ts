import { appRouter, catalogueOf, IDEMPOTENCY_KEY, internalApiRouter, publicApiRouter } from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import { describe, expect, it } from "vitest"
import type { z } from "zod"
import { openApiDocument } from "../src/openapi.js"

describe("OpenAPI document", () => {
  it("documents X-Idempotency-Key with the server's configured lifetime and core's bounds", () => {
    const doc = openApiDocument({
      router: publicApiRouter,
      title: "t",
      description: "d",
      serverUrl: "http://127.0.0.1:8000/api/v1/public",
      idempotencyTtlSeconds: 7200
    })
    const parameters = doc.paths["/points/credit"]?.["post"]?.["parameters"] as ReadonlyArray<Record<string, unknown>>
    expect(parameters.find((parameter) => parameter["name"] === IDEMPOTENCY_KEY.header)).toMatchObject({
      in: "header",
      description: expect.stringMatching(/^Makes retries safe for 2 h: /),
      schema: { type: "string", minLength: IDEMPOTENCY_KEY.minLength, maxLength: IDEMPOTENCY_KEY.maxLength }
    })
  })
})

const SERVER_URL = "https://fidelis.example.com.br/api/v1/public"

const documentOf = (router: AnyRouter) =>
  openApiDocument({ router, title: "t", description: "d", serverUrl: SERVER_URL, idempotencyTtlSeconds: 86400 })

/** Every object in the document, with where it is. */
const walk = function* (node: unknown, at = "#"): Generator<[string, Record<string, unknown>]> {
  if (typeof node !== "object" || node === null) return
  if (!Array.isArray(node)) yield [at, node as Record<string, unknown>]
  for (const [key, value] of Object.entries(node)) yield* walk(value, `${at}/${key}`)
}

describe.each([
  ["public", publicApiRouter, ["Client", "ClientPage", "Coupon", "LoyaltyCard", "Quest", "SurveyResponse"]],
  ["internal", internalApiRouter, ["Empresa", "ApiKey", "ApiKeyCreated", "EmailMessage"]]
] as const)("the %s OpenAPI document for generators and people", (_, router, resources) => {
  const doc = documentOf(router) as any
  const text = JSON.stringify(doc)

  it("names each resource once as a component and refers to it", () => {
    const names = Object.keys(doc.components.schemas)
    expect(names).toEqual(expect.arrayContaining([...resources]))
    expect(names.filter((name) => !text.includes(`"#/components/schemas/${name}"`))).toEqual([])
    const get = doc.paths["/clients/{client_id}"]?.get ?? doc.paths["/empresas/{empresa_id}"]?.get
    expect(get.responses["200"].content["application/json"].schema.$ref).toMatch(/^#\/components\/schemas\//)
  })

  it("gives every request body an example that its procedure's input accepts", () => {
    const bodies = catalogueOf(router).flatMap(({ meta, input }) => {
      const operation = doc.paths[meta.openapi!.path][meta.openapi!.method.toLowerCase()]
      const media = operation.requestBody?.content["application/json"]
      return media === undefined ? [] : [{ route: `${meta.openapi!.method} ${meta.openapi!.path}`, media, input }]
    })
    expect(bodies.length).toBeGreaterThan(1)
    for (const { route, media, input } of bodies) {
      expect(media.example, route).toBeDefined()
      expect(
        Object.keys(media.example).filter((name) => !(name in media.schema.properties)),
        route
      ).toEqual([])
      // The path's parameters complete the body into what the procedure reads.
      const full = ((input as z.ZodType).meta()?.["examples"] as unknown[] | undefined)?.[0]
      expect((input as z.ZodType).safeParse(full).error?.issues, route).toBeUndefined()
      expect(full, route).toMatchObject(media.example)
    }
  })

  it("writes uuids as a format, not a pattern, and no ±2^53 integer bounds", () => {
    const uuids = [...walk(doc)].filter(([, schema]) => schema["format"] === "uuid")
    expect(uuids.length).toBeGreaterThan(0)
    expect(uuids.filter(([, schema]) => schema["pattern"] !== undefined).map(([at]) => at)).toEqual([])
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER))
  })

  it("has a licence, described tags, an absolute server URL and a guide", () => {
    expect(doc.info.license).toEqual({ name: "MIT", url: expect.stringMatching(/^https:/) })
    expect(doc.servers).toEqual([{ url: SERVER_URL }])
    expect(doc.tags.length).toBeGreaterThan(0)
    for (const tag of doc.tags) expect(tag.description, tag.name).toEqual(expect.any(String))
    for (const heading of ["Authentication", "Errors", "Idempotency", "Rate limits", "Pagination"]) {
      expect(doc.info.description).toContain(`## ${heading}`)
    }
  })

  it("names no MCP tool in any description or summary", () => {
    const tools = catalogueOf(appRouter).flatMap(({ meta }) => (meta.tool ? [meta.tool.name] : []))
    expect(tools.length).toBeGreaterThan(25)
    const mention = new RegExp(`\\b(${tools.join("|")})\\b`)
    const texts = [...walk(doc)].flatMap(([at, node]) =>
      (["description", "summary"] as const).map((key) => [`${at}/${key}`, node[key]] as const)
    )
    expect(texts.filter(([, words]) => typeof words === "string" && mention.test(words)).map(([at]) => at)).toEqual([])
    // The check can fail: a REST description the way it was worded before.
    expect(mention.test("each shaped like create_client's input")).toBe(true)
  })
})
