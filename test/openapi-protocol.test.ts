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

describe("responses the OpenAPI documents describe", () => {
  it("every 401 names its WWW-Authenticate challenge", async () => {
    const unauthenticated = (await documents()).flatMap(({ url, doc }) =>
      Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, any> }>>).flatMap(
        ([path, item]) =>
          Object.entries(item).flatMap(([method, operation]) =>
            operation.responses["401"] === undefined
              ? []
              : [{ route: `${url} ${method} ${path}`, headers: operation.responses["401"].headers }]
          )
      )
    )
    expect(unauthenticated.map(({ route }) => route)).toEqual(
      expect.arrayContaining(["/api/v1/openapi.json post /auth/login", "/api/v1/public/openapi.json get /clients"])
    )
    const unnamed = unauthenticated.filter(({ headers }) => headers?.["WWW-Authenticate"] === undefined)
    expect(unnamed.map(({ route }) => route)).toEqual([])
  })
})
