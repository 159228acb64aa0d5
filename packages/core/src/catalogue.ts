import type { AnyProcedure, AnyRouter } from "@trpc/server"
import { z } from "zod"
import type { FidelisCallContext, FidelisClient } from "./client.js"
import type { ProcedureMeta } from "./meta.js"
import { appRouter, type AppRouter } from "./router.js"
import { createCallerFactory } from "./trpc.js"

type PathsOf<TRecord> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyProcedure ? K : `${K}.${PathsOf<TRecord[K]>}`
}[keyof TRecord & string]

/** A procedure's dotted path in a router, e.g. `points.credit`. */
export type ProcedurePath<TRouter extends AnyRouter = AppRouter> = PathsOf<TRouter["_def"]["record"]>

/**
 * One procedure as every adapter sees it: adapters read procedure metadata (docs/architecture.md,
 * "Runtime and adapters").
 */
export interface ProcedureEntry<TPath extends string = ProcedurePath> {
  readonly path: TPath
  readonly type: "query" | "mutation"
  readonly meta: ProcedureMeta
  /** Absent when the procedure takes no input. */
  readonly input: z.ZodObject | undefined
  /** Absent when the procedure does not declare its output. */
  readonly output: z.ZodType | undefined
}

/** The parts of a built procedure read here; `output` exists at runtime but is not in tRPC's types. */
interface ProcedureDef {
  readonly type: "query" | "mutation" | "subscription"
  readonly meta?: ProcedureMeta
  readonly inputs: ReadonlyArray<unknown>
  readonly output?: unknown
}

const entryOf = <TPath extends string>(path: TPath, def: ProcedureDef): ProcedureEntry<TPath> => {
  // Every surface derives options, arguments and documents from one object input (docs/architecture.md,
  // "Runtime and adapters").
  const [input, ...more] = def.inputs
  if (more.length > 0 || (input !== undefined && !(input instanceof z.ZodObject))) {
    throw new Error(`Procedure ${path}: its input must be a single z.object`)
  }
  if (def.type === "subscription") throw new Error(`Procedure ${path}: subscriptions have no REST, MCP or CLI form`)
  return {
    path,
    type: def.type,
    meta: def.meta ?? {},
    input,
    output: def.output instanceof z.ZodType ? def.output : undefined
  }
}

const catalogues = new WeakMap<AnyRouter, ReadonlyArray<ProcedureEntry<string>>>()

/**
 * Every procedure of a router (`appRouter`, `publicApiRouter`, `internalApiRouter`), in router
 * order; derived once per router.
 */
export const catalogueOf = <TRouter extends AnyRouter>(
  router: TRouter
): ReadonlyArray<ProcedureEntry<ProcedurePath<TRouter>>> => {
  let catalogue = catalogues.get(router)
  if (catalogue === undefined) {
    // Typed as the nested record, but at runtime tRPC keeps procedures flat under dotted paths.
    const procedures = router._def.procedures as Record<string, { readonly _def: ProcedureDef }>
    catalogue = Object.entries(procedures).map(([path, { _def }]) => entryOf(path, _def))
    catalogues.set(router, catalogue)
  }
  return catalogue as ReadonlyArray<ProcedureEntry<ProcedurePath<TRouter>>>
}

/** Calls `appRouter`'s procedures in this process, through their middleware and validation. */
export const createAppCaller = createCallerFactory(appRouter)

export type AppCaller = ReturnType<typeof createAppCaller>

/** What a client from `createFidelisClient` holds at a procedure's path. */
export interface ClientProcedure {
  readonly query: (input: unknown, options?: ClientCallOptions) => Promise<unknown>
  readonly mutate: (input: unknown, options?: ClientCallOptions) => Promise<unknown>
}

export interface ClientCallOptions {
  readonly context?: FidelisCallContext
  readonly signal?: AbortSignal | undefined
}

/**
 * The procedure at a dotted path of a caller or a client: both are proxies keyed by router path,
 * and surfaces that dispatch by name (MCP tools, CLI commands) hold the path as a string.
 */
export function procedureAt(caller: AppCaller, path: string): (input: unknown) => Promise<unknown>
export function procedureAt(client: FidelisClient, path: string): ClientProcedure
export function procedureAt(proxy: AppCaller | FidelisClient, path: string): unknown {
  return path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], proxy)
}
