import type { ProcedureMeta } from "@fidelis/core"
import type { AnyRouter } from "@trpc/server"
import {
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce
} from "trpc-to-openapi"
import { ZodArray, type ZodType } from "zod/v4"
import { checkLocation } from "./location.js"

/** A REST route's procedure, with what its calls need worked out once instead of on every request. */
export interface Route {
  /** The procedure's dotted path in the router. */
  readonly path: string
  readonly type: "query" | "mutation"
  readonly meta: ProcedureMeta
  /** The status of a success: `meta.successStatus`, else 200. */
  readonly status: number
  /** The procedure takes no input (`z.void()`): it is called with none, whatever the request holds. */
  readonly takesNoInput: boolean
  /** Input fields that are lists: a query string's single value for one becomes a list of one. */
  readonly listFields: ReadonlyArray<string>
}

export interface RouteMatch {
  readonly route: Route
  /** The path's parameters by name, as they appear in the path (not percent-decoded). */
  readonly pathInput: Readonly<Record<string, string>>
}

/**
 * A path template's pattern, matched as trpc-to-openapi matches a route: each parameter one segment,
 * case-insensitively. Its dots are literal, so `/qr/{code}.svg` does not take `/qr/abcXsvg`.
 */
export const pathPattern = (template: string) => getPathRegExp(normalizePath(template).replaceAll(".", "\\."))

const isList = (schema: ZodType) =>
  schema instanceof ZodArray || (instanceofZodTypeOptional(schema) && schema.unwrap() instanceof ZodArray)

/**
 * A router's REST routes, matched as trpc-to-openapi's own handler matches them: by method, then
 * the first route declared whose path template matches, case-insensitively, each parameter one
 * segment. Built once per router. The handler did the rest on every request: merge the input
 * parsers, unwrap them, and mark the object schemas' fields as coercing (query strings carry
 * numbers and booleans as text), a change to the shared schemas that is the same every time, so it
 * is made here, once, for every route.
 */
export const createRouteTable = (router: AnyRouter) => {
  const byMethod = new Map<string, Array<readonly [RegExp, Route]>>()
  // Checked once every route is known: a location may be a path declared later.
  const locations: Array<readonly [string, string, ZodType | undefined]> = []
  forEachOpenApiProcedure(router._def.procedures, ({ path, type, procedure, meta }) => {
    if (type === "subscription") return
    const procedureMeta = meta as ProcedureMeta
    const { inputParser, outputParser } = getInputOutputParsers(procedure)
    if (procedureMeta.location !== undefined) locations.push([path, procedureMeta.location, outputParser])
    const input = unwrapZodType(inputParser, true)
    const isObject = instanceofZodTypeObject(input)
    if (isObject && zodSupportsCoerce) coerceSchema(input)
    const route: Route = {
      path,
      type,
      meta: procedureMeta,
      status: procedureMeta.successStatus ?? 200,
      takesNoInput: instanceofZodTypeLikeVoid(input),
      listFields: isObject ? Object.keys(input.shape).filter((key) => isList(input.shape[key] as ZodType)) : []
    }
    const routes = byMethod.get(meta.openapi.method) ?? []
    routes.push([pathPattern(meta.openapi.path), route])
    byMethod.set(meta.openapi.method, routes)
  })
  const patterns = [...byMethod.values()].flat().map(([pattern]) => pattern)
  for (const [path, template, output] of locations)
    checkLocation(path, template, output, (sample) => patterns.some((pattern) => pattern.test(normalizePath(sample))))

  /** The route a request takes, by its method and its path after the API's base. */
  return (method: string, path: string): RouteMatch | undefined => {
    const normalized = normalizePath(path)
    for (const [pattern, route] of byMethod.get(method) ?? []) {
      const match = pattern.exec(normalized)
      if (match !== null) return { route, pathInput: match.groups ?? {} }
    }
    return undefined
  }
}

export type RouteTable = ReturnType<typeof createRouteTable>
