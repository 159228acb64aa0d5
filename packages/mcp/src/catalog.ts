import {
  appRouter,
  catalogueOf,
  IDEMPOTENCY_KEY,
  idempotencyKeyDescription,
  type Principal,
  type ProcedureEntry,
  type ProcedureMeta
} from "@fidelis/core"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"

/** The MCP argument that carries what REST sends as `X-Idempotency-Key`. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key"

/** One router procedure as MCP sees it: its listing and what a call needs to reach it. */
export interface CatalogEntry {
  readonly tool: Tool
  /** Dotted router path, e.g. `points.credit`. */
  readonly path: string
  readonly meta: ProcedureMeta
  /** The tool result's `structuredContent` for a procedure result; absent when the output is not structured. */
  readonly structure: ((result: unknown) => Record<string, unknown>) | undefined
}

type ObjectSchema = Tool["inputSchema"]

/**
 * Core names its resources (`.meta({ id })`) for the OpenAPI document's components. A tool's schema
 * stands alone and its root must be an object, so it reads the same metadata without the ids, which
 * would move each named schema into `$defs` behind a `$ref`.
 */
const metadataWithoutIds = {
  get: (schema: z.core.$ZodType) => {
    const meta = z.globalRegistry.get(schema)
    if (meta?.id === undefined) return meta
    const { id: _, ...rest } = meta
    return rest
  }
} as unknown as typeof z.globalRegistry

/**
 * 2020-12 is MCP's default dialect (SEP-1613). The SDK client validates structuredContent with a
 * draft-07 Ajv that skips the `$schema` check, which reads these schemas right only while they use no
 * keyword whose meaning changed (tuples, $defs); the handler test fails if one appears.
 */
const toJsonSchema = (schema: z.ZodType, io: "input" | "output"): ObjectSchema =>
  z.toJSONSchema(schema, { io, target: "draft-2020-12", metadata: metadataWithoutIds }) as ObjectSchema

const inputSchemaOf = ({ path, input, meta }: ProcedureEntry): ObjectSchema => {
  if (input === undefined) return { type: "object", properties: {} }
  const schema = toJsonSchema(input, "input")
  if (meta.idempotent && schema.properties?.[IDEMPOTENCY_ARGUMENT] !== undefined) {
    throw new Error(`Procedure ${path}: input field ${IDEMPOTENCY_ARGUMENT} clashes with the idempotency argument`)
  }
  return schema
}

/** The lifetime the description names is the server's, so the argument is added per request. */
const withIdempotencyArgument = (entry: CatalogEntry, description: string): CatalogEntry => {
  if (!entry.meta.idempotent) return entry
  const { inputSchema } = entry.tool
  const argument = {
    type: "string",
    minLength: IDEMPOTENCY_KEY.minLength,
    maxLength: IDEMPOTENCY_KEY.maxLength,
    description
  }
  return {
    ...entry,
    tool: {
      ...entry.tool,
      inputSchema: { ...inputSchema, properties: { ...inputSchema.properties, [IDEMPOTENCY_ARGUMENT]: argument } }
    }
  }
}

/**
 * structuredContent must be a JSON object, so a list result travels as `{ items }`; the output
 * schema is derived from the same wrapping so the two cannot drift apart.
 */
const outputOf = ({ output }: ProcedureEntry): Pick<CatalogEntry, "structure"> & { schema?: ObjectSchema } => {
  if (output instanceof z.ZodObject) {
    return { schema: toJsonSchema(output, "output"), structure: (result) => result as Record<string, unknown> }
  }
  if (output instanceof z.ZodArray) {
    return { schema: toJsonSchema(z.object({ items: output }), "output"), structure: (result) => ({ items: result }) }
  }
  return { structure: undefined }
}

const descriptionOf = (meta: ProcedureMeta) =>
  [meta.openapi?.summary, meta.openapi?.description].filter((part) => part !== undefined).join(". ")

type ToolMeta = NonNullable<ProcedureMeta["tool"]>

/**
 * The safety hints clients show and act on, all from core's `meta.tool` (the one place they are set):
 *
 * | tools                                   | readOnly | destructive | idempotent                         |
 * | --------------------------------------- | -------- | ----------- | ---------------------------------- |
 * | reads (list_*, get_*)                   | true     | false       | true                               |
 * | updates to given values, use_coupon     | false    | false       | true (`retrySafe`)                 |
 * | cancel_coupon, revoke_api_key           | false    | true        | false                              |
 * | other writes (credit_points, create_*)  | false    | false       | false: retry only with the same    |
 * |                                         |          |             | `idempotency_key`, where it has one |
 */
export const annotationsOf = (toolMeta: ToolMeta): NonNullable<Tool["annotations"]> => {
  const readOnly = toolMeta.readOnly ?? false
  return {
    readOnlyHint: readOnly,
    destructiveHint: toolMeta.destructive ?? false,
    idempotentHint: readOnly || (toolMeta.retrySafe ?? false),
    openWorldHint: false
  }
}

const entryOf = (procedure: ProcedureEntry, toolMeta: ToolMeta): CatalogEntry => {
  const { path, meta } = procedure
  const { schema: outputSchema, structure } = outputOf(procedure)
  const tool: Tool = {
    name: toolMeta.name,
    ...(meta.openapi?.summary !== undefined && { title: meta.openapi.summary }),
    description: descriptionOf(meta),
    inputSchema: inputSchemaOf(procedure),
    ...(outputSchema !== undefined && { outputSchema }),
    annotations: annotationsOf(toolMeta)
  }
  return { tool, path, meta, structure }
}

/** Every procedure that carries `meta.tool`, in router order. */
const deriveCatalog = (): ReadonlyArray<CatalogEntry> => {
  const entries = catalogueOf(appRouter).flatMap((procedure) =>
    procedure.meta.tool === undefined ? [] : [entryOf(procedure, procedure.meta.tool)]
  )
  const names = entries.map((entry) => entry.tool.name)
  const duplicate = names.find((name, i) => names.indexOf(name) !== i)
  if (duplicate !== undefined) throw new Error(`Two procedures share the MCP tool name ${duplicate}`)
  return entries
}

const catalog = deriveCatalog()

/** Each catalogue built so far, by who sees it and the key lifetime it names: a handful per server. */
const built = new Map<string, ReadonlyArray<CatalogEntry>>()

/**
 * The tools a principal may see: a company key gets its empresa's tools, an admin gets all of
 * them (company tools then need the Fidelis-Empresa header, as on REST). `idempotencyTtlSeconds`
 * is the server's `CoreConfig.idempotencyTtlSeconds`. Built once per catalogue and handed out as
 * the same array, so a request (or a batch of tools/list) never rebuilds it.
 */
export const catalogFor = (principal: Principal, idempotencyTtlSeconds: number): ReadonlyArray<CatalogEntry> => {
  const admin = principal.kind === "admin"
  const name = `${admin ? "admin" : "empresa"}:${idempotencyTtlSeconds}`
  let entries = built.get(name)
  if (entries === undefined) {
    const visible = admin
      ? catalog
      : catalog.filter((entry) => entry.meta.scope === "empresa" && !entry.meta.tool?.adminOnly)
    const description = idempotencyKeyDescription(idempotencyTtlSeconds)
    entries = visible.map((entry) => withIdempotencyArgument(entry, description))
    built.set(name, entries)
  }
  return entries
}
