import { catalogueOf, editDistance, requestRefusal } from "@fidelis/core"
import type { AnyRouter, TRPCError } from "@trpc/server"
import { normalizePath } from "trpc-to-openapi"
import { pathPattern } from "./route-table.js"

/** A REST base path and the router whose OpenAPI routes it serves. */
export interface RestApi {
  readonly base: `/${string}`
  readonly router: AnyRouter
}

interface Route {
  readonly method: string
  readonly base: string
  /** The full path template, e.g. `/api/v1/public/clients/{client_id}`. */
  readonly template: string
  /** The template's segments after its base: `clients`, `{client_id}`. */
  readonly segments: ReadonlyArray<string>
  readonly pattern: RegExp
}

/** Paths longer than this get no suggestion and are cut short when shown. */
const MAX_SUGGESTED_PATH = 200

const isParameter = (segment: string) => segment.startsWith("{") && segment.endsWith("}")

const segmentsOf = (path: string) => normalizePath(path).split("/").slice(1)

const routeOf = (method: string, base: string, path: string): Route => ({
  method,
  base,
  template: `${base}${path}`,
  segments: segmentsOf(path),
  pattern: pathPattern(`${base}${path}`)
})

/**
 * How far a request's path (after its base) is from a route's: the edit distance to the route's
 * path with each of its parameters replaced by the request's own segment there, so
 * `/clients/<id>/pointz` is one edit from `/clients/{client_id}/points`.
 */
const distanceTo = (route: Route, segments: ReadonlyArray<string>): number => {
  const filled = route.segments.map((segment, i) => (isParameter(segment) ? (segments[i] ?? segment) : segment))
  return editDistance(`/${filled.join("/").toLowerCase()}`, `/${segments.join("/").toLowerCase()}`)
}

/** The segments all bases share (`/api/v1`): what a path under none of them is taken to start with. */
const sharedPrefix = (bases: ReadonlyArray<string>): string => {
  const lists = bases.map(segmentsOf)
  const [first = []] = lists
  let n = 0
  while (n < first.length && lists.every((list) => list[n] === first[n])) n++
  return first
    .slice(0, n)
    .map((segment) => `/${segment}`)
    .join("")
}

/**
 * Every REST route of the server (each API's procedures and its OpenAPI document), to refuse a
 * request no route takes in words a person can act on: a wrong method is a 405 naming the methods
 * the path has (`Allow`), an unknown path a 404 naming the nearest route.
 */
export const createRouteIndex = (apis: ReadonlyArray<RestApi>) => {
  const routes: ReadonlyArray<Route> = apis.flatMap(({ base, router }) => [
    routeOf("GET", base, "/openapi.json"),
    ...catalogueOf(router).flatMap(({ meta }) =>
      meta.openapi === undefined ? [] : [routeOf(meta.openapi.method, base, meta.openapi.path)]
    )
  ])
  const shared = sharedPrefix(apis.map(({ base }) => base))
  // The longest base that holds the path: `/api/v1/public/…` is the company API's, not `/api/v1`'s.
  const byLength = apis.toSorted((a, b) => b.base.length - a.base.length)
  const apiOf = (path: string) => byLength.find(({ base }) => path === base || path.startsWith(`${base}/`))

  /** The methods a path has, in the order the routes are declared. */
  const methodsAt = (path: string): ReadonlyArray<string> => {
    const normalized = normalizePath(path)
    return [...new Set(routes.filter((route) => route.pattern.test(normalized)).map((route) => route.method))]
  }

  const nearest = (method: string, path: string): Route | undefined => {
    // No typo is this long; and the distances would cost time in proportion to it.
    if (path.length > MAX_SUGGESTED_PATH) return undefined
    // Compared after the base, so `/api/v1/public/empresas` finds the admin API's `/empresas`; a
    // route of the path's own API, then of its method, wins a tie.
    const base = apiOf(path)?.base
    const tail = path.slice((base ?? (path.startsWith(`${shared}/`) ? shared : "")).length)
    const segments = segmentsOf(tail)
    let best: { route: Route; distance: number; score: number } | undefined
    for (const route of routes) {
      const distance = distanceTo(route, segments) + (route.base === base ? 0 : 1)
      const score = distance * 2 + (route.method === method ? 0 : 1)
      if (best === undefined || score < best.score) best = { route, distance, score }
    }
    // Far enough to be another route altogether, not a typo of one: no suggestion then.
    return best !== undefined && best.distance <= Math.max(3, tail.length / 2) ? best.route : undefined
  }

  /** The refusal of a request no route takes: 405 when the path has other methods, else 404. */
  const refusalOf = (method: string, path: string): TRPCError => {
    const methods = methodsAt(path)
    if (methods.length > 0) {
      return requestRefusal(
        "METHOD_NOT_ALLOWED",
        `${method} is not allowed on ${normalizePath(path)}; use ${methods.join(" or ")}`,
        { Allow: methods.join(", ") }
      )
    }
    const route = nearest(method, path)
    const api = route === undefined ? (apiOf(path) ?? apis[0]) : apis.find(({ base }) => base === route.base)
    const listing = api === undefined ? "" : ` Every route is listed in ${api.base}/openapi.json.`
    const shown = path.length > MAX_SUGGESTED_PATH ? `${path.slice(0, MAX_SUGGESTED_PATH)}…` : path
    return requestRefusal(
      "ROUTE_NOT_FOUND",
      route === undefined
        ? `No route ${method} ${shown}.${listing}`
        : `No route ${method} ${shown}. Did you mean ${route.method} ${route.template}?${listing}`
    )
  }

  return { methodsAt, refusalOf }
}

export type RouteIndex = ReturnType<typeof createRouteIndex>
