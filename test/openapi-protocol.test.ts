import { describe, expect, it } from "vitest"
import { call, useServer } from "./support/index.js"

const server = useServer()

const DOCUMENTS = ["/api/v1/public/openapi.json", "/api/v1/internal/openapi.json", "/api/v1/openapi.json"]

type Node = Record<string, unknown>

/** Every object in a document with the path that reaches it, for schema-wide checks. */
const nodesOf = (value: unknown, path = "#"): Array<{ path: string; node: Node }> => {
  if (typeof value !== "object" || value === null) return []
  const children = Object.entries(value).flatMap(([key, child]) => nodesOf(child, `${path}/${key}`))
  return Array.isArray(value) ? children : [{ path, node: value as Node }, ...children]
}

const documents = () => Promise.all(DOCUMENTS.map(async (url) => ({ url, doc: (await call(server, url)).body })))

describe("string formats in the OpenAPI documents", () => {
  it("dates, instants and UUIDs are said by their format, without zod's patterns beside them", async () => {
    const nodes = (await documents()).flatMap(({ url, doc }) =>
      nodesOf(doc).map(({ path, node }) => ({ where: `${url} ${path}`, node }))
    )
    const formats = new Set(nodes.map(({ node }) => node["format"]))
    expect([...formats]).toEqual(expect.arrayContaining(["date", "date-time", "uuid"]))
    const formatsWithPatterns = nodes
      .filter(({ node }) => ["date", "date-time", "uuid"].includes(node["format"] as string) && "pattern" in node)
      .map(({ where }) => where)
    expect(formatsWithPatterns).toEqual([])
    // The longest pattern left is an email address's, about 100 characters.
    const longPatterns = nodes
      .filter(({ node }) => typeof node["pattern"] === "string" && node["pattern"].length > 120)
      .map(({ where }) => where)
    expect(longPatterns).toEqual([])
  })
})

/** Every operation of the three documents, named `<document> <method> <path>`. */
const operations = async () =>
  (await documents()).flatMap(({ url, doc }) =>
    Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, any> }>>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          route: `${url.replace("/openapi.json", "")} ${method.toUpperCase()} ${path}`,
          method,
          responses: operation.responses
        }))
    )
  )

describe("responses the OpenAPI documents describe", () => {
  it("every 401 names its WWW-Authenticate challenge", async () => {
    const unauthenticated = (await operations()).filter(({ responses }) => responses["401"] !== undefined)
    expect(unauthenticated.map(({ route }) => route)).toEqual(
      expect.arrayContaining(["/api/v1 POST /auth/login", "/api/v1/public GET /clients"])
    )
    const unnamed = unauthenticated.filter(
      ({ responses }) => responses["401"].headers?.["WWW-Authenticate"] === undefined
    )
    expect(unnamed.map(({ route }) => route)).toEqual([])
  })

  it("413 and 415 on every route that reads a body, in both documents, and on no other", async () => {
    const all = await operations()
    for (const { route, method, responses } of all) {
      const readsBody = ["post", "put", "patch"].includes(method)
      expect(["413" in responses, "415" in responses], route).toEqual([readsBody, readsBody])
    }
    const byRoute = new Map(all.map(({ route, responses }) => [route, responses]))
    expect(byRoute.get("/api/v1 POST /auth/login")?.["413"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Problem"
    })
    expect(byRoute.get("/api/v1/public POST /clients")?.["415"].description).toBe(
      "The body must be sent with `Content-Type: application/json`"
    )
    // The one-click unsubscribe takes a form too (RFC 8058).
    expect(byRoute.get("/api/v1/public POST /email/unsubscribe/{token}")?.["415"].description).toContain(
      "application/x-www-form-urlencoded"
    )
  })

  it("every 201 names its Location, but for what has no path of its own", async () => {
    const created = (await operations()).filter(({ responses }) => responses["201"] !== undefined)
    expect(created.length).toBeGreaterThan(10)
    const unlocated = created.filter(({ responses }) => responses["201"].headers?.["Location"] === undefined)
    expect(unlocated.map(({ route }) => route).toSorted()).toEqual([
      "/api/v1 POST /rewards/{reward_uid}/redeem",
      "/api/v1/public POST /loyalty-cards",
      "/api/v1/public POST /quests/{estabelecimento_ref}/{quest_id}/responses"
    ])
  })
})
