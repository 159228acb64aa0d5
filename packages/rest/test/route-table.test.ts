import { initTRPC } from "@trpc/server"
import type { OpenApiMeta } from "trpc-to-openapi"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRouteTable } from "../src/route-table.js"

const t = initTRPC.meta<OpenApiMeta>().create()
const Search = z.object({ tags: z.array(z.string()).optional(), limit: z.number().optional() })

const router = t.router({
  thing: t.procedure
    .meta({ openapi: { method: "GET", path: "/things/{thing_id}" } })
    .input(z.object({ thing_id: z.string() }))
    .query(() => "thing"),
  // Declared after the parameter route, so trpc-to-openapi never routed to it: neither do we.
  special: t.procedure
    .meta({ openapi: { method: "GET", path: "/things/special" } })
    .input(z.object({}))
    .query(() => "special"),
  search: t.procedure
    .meta({ openapi: { method: "GET", path: "/things" } })
    .input(Search)
    .query(() => []),
  badge: t.procedure
    .meta({ openapi: { method: "GET", path: "/badges/{code}.svg" } })
    .input(z.object({ code: z.string() }))
    .query(() => "<svg/>"),
  ping: t.procedure
    .meta({ openapi: { method: "POST", path: "/ping" } })
    .input(z.void())
    .mutation(() => "pong")
})

describe("the REST route table", () => {
  const routeOf = createRouteTable(router)

  it("takes the first route declared that matches, case-insensitively, with its parameters as written", () => {
    expect(routeOf("GET", "/things/special")?.route.path).toBe("thing")
    expect(routeOf("GET", "/THINGS/a%20b/")).toMatchObject({
      route: { path: "thing" },
      pathInput: { thing_id: "a%20b" }
    })
    expect(routeOf("GET", "/things")?.route.path).toBe("search")
    expect(routeOf("POST", "/things")).toBeUndefined()
    expect(routeOf("GET", "/things/a/b")).toBeUndefined()
  })

  it("reads a dot in a template as a dot, not as any character", () => {
    expect(routeOf("GET", "/badges/AB12.svg")).toMatchObject({ route: { path: "badge" }, pathInput: { code: "AB12" } })
    expect(routeOf("GET", "/badges/AB12xsvg")).toBeUndefined()
  })

  it("knows once which fields are lists and which procedures take no input, and makes query fields coerce", () => {
    expect(routeOf("GET", "/things")?.route).toMatchObject({ listFields: ["tags"], takesNoInput: false, status: 200 })
    expect(routeOf("POST", "/ping")?.route).toMatchObject({ listFields: [], takesNoInput: true, type: "mutation" })
    // A query string carries numbers as text.
    expect(Search.parse({ limit: "5" })).toEqual({ limit: 5 })
  })
})
