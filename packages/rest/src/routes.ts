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
  /** Path parameters that are credentials (`meta.secretParams`): the access log never shows them. */
  readonly secrets: ReadonlyArray<string>
}

/** Paths longer than this get no suggestion and are cut short when shown. */
const MAX_SUGGESTED_PATH = 200

const isParameter = (segment: string) => segment.startsWith("{") && segment.endsWith("}")

const segmentsOf = (path: string) => normalizePath(path).split("/").slice(1)

const routeOf = (method: string, base: string, path: string, secrets: ReadonlyArray<string> = []): Route => ({
  method,
  base,
  template: `${base}${path}`,
  segments: segmentsOf(path),
  pattern: pathPattern(`${base}${path}`),
  secrets
})

/** A route whose path carries a credential, ready to find it in a request's path. */
interface SecretRoute {
  readonly route: Route
  /** The template's path before its first parameter, lower-cased: a path not starting so holds none. */
  readonly prefix: string
  /** Each segment of the full template, as the access log writes it: `{token}.gif` is `:token.gif`. */
  readonly shown: ReadonlyArray<string | undefined>
  /** The segments up to the last secret one, lower-cased, or undefined for one with a parameter. */
  readonly leading: ReadonlyArray<string | undefined>
}

const secretRouteOf = (route: Route): SecretRoute => {
  const segments = segmentsOf(route.template)
  const holdsSecret = (segment: string) => route.secrets.some((name) => segment.includes(`{${name}}`))
  return {
    route,
    prefix: route.template.slice(0, route.template.indexOf("{")).toLowerCase(),
    shown: segments.map((segment) =>
      holdsSecret(segment)
        ? segment.replace(/\{(.+?)\}/g, (parameter, name: string) =>
            route.secrets.includes(name) ? `:${name}` : parameter
          )
        : undefined
    ),
    leading: segments
      .slice(0, segments.findLastIndex(holdsSecret) + 1)
      .map((segment) => (segment.includes("{") ? undefined : segment.toLowerCase()))
  }
}

/** Whether a path's segments start as a secret route's, up to its secret, whatever each parameter holds. */
const startsAs = ({ leading }: SecretRoute, segments: ReadonlyArray<string>) =>
  leading.every((expected, i) => {
    const segment = segments[i]
    return segment !== undefined && segment !== "" && (expected === undefined || segment.toLowerCase() === expected)
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
      meta.openapi === undefined ? [] : [routeOf(meta.openapi.method, base, meta.openapi.path, meta.secretParams)]
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

  const secretRoutes = routes.filter((route) => route.secrets.length > 0).map(secretRouteOf)

  /**
   * The path as the access log writes it: a credential in it (an email link's token) replaced by
   * its name, `/api/v1/public/email/open/:token.gif`. A secret route that takes the path says which
   * segments are secret; a path no route takes is read against the secret routes it starts as, so a
   * link cut or extended in transit does not leak either. The query string is never logged (the
   * account pages' `?token=`).
   */
  const loggedPath = (path: string): string => {
    const normalized = normalizePath(path)
    const lower = normalized.toLowerCase()
    // Most requests: no secret route's path starts so.
    if (!secretRoutes.some(({ prefix }) => lower.startsWith(prefix))) return path
    const segments = segmentsOf(normalized)
    const secret =
      secretRoutes.find(({ route }) => route.pattern.test(normalized)) ??
      (routes.some((route) => route.pattern.test(normalized))
        ? undefined
        : secretRoutes.find((route) => startsAs(route, segments)))
    if (secret === undefined) return path
    return `/${segments.map((segment, i) => secret.shown[i] ?? segment).join("/")}`
  }

  return { methodsAt, refusalOf, loggedPath }
}

export type RouteIndex = ReturnType<typeof createRouteIndex>
