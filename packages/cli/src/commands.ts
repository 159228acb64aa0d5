import { END_USER_SCOPES, idempotencyKeyDescription, type ProcedureMeta } from "@fidelis/core"
import { initTRPC, type AnyProcedure, type AnyRouter } from "@trpc/server"
import { parseRouter, type TrpcCliMeta } from "trpc-cli"
import { CommandFailed, ExitCode } from "./exit-codes.js"
import type { Call } from "./transport.js"

/**
 * Derives one CLI command per procedure of a tRPC router. trpc-cli builds commander commands from
 * a router, but it names options after the input's keys as they are (`--client_id`), so the CLI
 * hands it a mirror router: same paths and help, keys renamed by a few generic rules, and
 * procedures that translate back to the wire names and forward the call (in process or over
 * HTTP). The mirror never validates: core does, once, with the same 422 every surface returns.
 *
 * Naming rules, for every procedure alike:
 * - a field `client_id` is the option `--client-id`;
 * - a field `<x>_id` also answers to `--<x>` (`--client`), unless that name is taken;
 * - the resource its REST path names (or the only field of a one-field input) is also positional
 *   (`clients get <CLIENT_ID>`);
 * - a procedure with `meta.idempotent` gets `--idempotency-key`, sent as X-Idempotency-Key;
 * - a boolean gets `--no-<name>`; a nullable field takes the word `null` to clear it.
 */

type JsonSchema = Readonly<Record<string, unknown>>

const IDEMPOTENCY_KEY = "idempotencyKey"

type Binding =
  { readonly kind: "field"; readonly field: string; readonly nullable: boolean } | { readonly kind: "idempotencyKey" }

interface Derived {
  readonly jsonSchema: JsonSchema
  /** Extra option names, keyed by property (trpc-cli's `meta.aliases.options`). */
  readonly aliases: Readonly<Record<string, string>>
  readonly toCall: (options: Readonly<Record<string, unknown>>) => Call
}

// trpc-cli kebab-cases camelCase keys, so camelCase is how a snake_case field becomes --kebab-case.
const camel = (field: string) => field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
const kebab = (field: string) => field.replaceAll("_", "-")

const isNullSchema = (s: unknown) => typeof s === "object" && s !== null && (s as JsonSchema)["type"] === "null"
const isBooleanSchema = (s: unknown) => typeof s === "object" && s !== null && (s as JsonSchema)["type"] === "boolean"

/** Rewrites zod's JSON Schema for a field into what reads and parses well as a flag. */
const asFlag = (schema: JsonSchema): { schema: JsonSchema; nullable: boolean } => {
  // zod repeats a format's regex as `pattern` (uuid, email): noise in help, and `format` says it.
  const { pattern, anyOf, ...rest } = schema
  const base = pattern !== undefined && rest["format"] === undefined ? { ...rest, pattern } : rest
  if (!Array.isArray(anyOf)) return { schema: base, nullable: false }
  // `true | false` literals (JSON-only booleans in core) are a plain boolean flag here.
  if (anyOf.every(isBooleanSchema)) return { schema: { ...base, type: "boolean" }, nullable: false }
  const others = anyOf.filter((s) => !isNullSchema(s))
  if (others.length === 1 && others.length < anyOf.length) {
    const described = [base["description"] ?? (others[0] as JsonSchema)["description"], "the word null clears it"]
    const { schema: inner } = asFlag(others[0] as JsonSchema)
    return { schema: { ...inner, ...base, description: described.filter(Boolean).join("; ") }, nullable: true }
  }
  return { schema: { ...base, anyOf }, nullable: false }
}

const usage = (message: string) => new CommandFailed(message, ExitCode.Usage)

const scopeNote: Record<string, string> = {
  public: "Public: needs no API key (what a respondent's survey page calls); counts against the caller's address.",
  empresa: "Acts on one empresa: the API key's own, or the one --empresa names (admin key or local mode).",
  admin: "Platform administration: local mode, or an admin-scope API key."
}

const descriptionOf = (meta: ProcedureMeta) =>
  [meta.openapi?.summary, meta.openapi?.description, meta.scope && scopeNote[meta.scope]].filter(Boolean).join("\n\n")

interface Source {
  readonly path: string
  readonly type: Call["type"]
  readonly input: JsonSchema | undefined
  readonly meta: ProcedureMeta
}

/**
 * The field a command also takes as its argument: the resource a REST path names
 * (`cards stamp <CARD_ID>`, `coupons use <UID>`), or the only field of a one-field input.
 */
const positionalOf = (
  meta: ProcedureMeta,
  fields: ReadonlyArray<readonly [string, unknown]>,
  required: ReadonlySet<string>
) => {
  const pathParams = [...(meta.openapi?.path ?? "").matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  if (pathParams.length === 1 && required.has(pathParams[0]!)) return pathParams[0]
  return fields.length === 1 && required.has(fields[0]![0]) ? fields[0]![0] : undefined
}

const deriveCommand = ({ path, type, input, meta }: Source, reserved: ReadonlySet<string>): Derived => {
  const fields = Object.entries((input?.["properties"] ?? {}) as Record<string, JsonSchema>)
  const required = new Set((input?.["required"] ?? []) as string[])
  const taken = new Set([...reserved, ...fields.map(([field]) => kebab(field))])
  const positional = positionalOf(meta, fields, required)

  const properties: Record<string, JsonSchema> = {}
  const bindings = new Map<string, Binding>()
  const requiredKeys: string[] = []
  const aliases: Record<string, string> = {}
  for (const [field, fieldSchema] of fields) {
    if (reserved.has(kebab(field)))
      throw new Error(`${path}: input field ${field} collides with the global option --${kebab(field)}`)
    const key = camel(field)
    const { schema, nullable } = asFlag(fieldSchema)
    const short = /^(.+)_id$/.exec(field)?.[1]
    if (short !== undefined && !taken.has(kebab(short))) {
      aliases[key] = kebab(short)
      taken.add(kebab(short))
    }
    properties[key] = schema
    bindings.set(key, { kind: "field", field, nullable })
    if (field === positional) {
      properties[field.toUpperCase()] = { ...schema, positional: true, optional: true }
      bindings.set(field.toUpperCase(), { kind: "field", field, nullable })
    } else if (required.has(field)) {
      requiredKeys.push(key)
    }
  }
  if (meta.idempotent) {
    if (taken.has("idempotency-key")) throw new Error(`${path}: input field collides with --idempotency-key`)
    // Help is built before a server is chosen, so it cannot name that server's key lifetime.
    properties[IDEMPOTENCY_KEY] = {
      type: "string",
      description: idempotencyKeyDescription(undefined, meta.idempotent)
    }
    bindings.set(IDEMPOTENCY_KEY, { kind: "idempotencyKey" })
  }

  const toCall = (options: Readonly<Record<string, unknown>>): Call => {
    const wire: Record<string, unknown> = {}
    let idempotencyKey: string | undefined
    for (const [key, value] of Object.entries(options)) {
      const binding = bindings.get(key)
      if (binding === undefined || value === undefined) continue
      if (binding.kind === "idempotencyKey") {
        idempotencyKey = String(value)
        continue
      }
      if (binding.field in wire) {
        throw usage(`give ${binding.field.toUpperCase()} or --${kebab(binding.field)}, not both`)
      }
      wire[binding.field] = binding.nullable && value === "null" ? null : value
    }
    if (positional !== undefined && !(positional in wire)) {
      throw usage(`missing ${positional.toUpperCase()} (or --${kebab(positional)})`)
    }
    return { path, type, input: wire, idempotencyKey }
  }

  return {
    jsonSchema: { type: "object", properties, required: requiredKeys, additionalProperties: false },
    aliases,
    toCall
  }
}

/**
 * The mirror's input: hands trpc-cli the derived JSON Schema and lets values through untouched
 * (Standard Schema, which both tRPC and trpc-cli accept).
 */
const passThrough = (jsonSchema: JsonSchema) => ({
  "~standard": {
    version: 1 as const,
    vendor: "fidelis-cli",
    validate: (value: unknown) => ({ value: value as Readonly<Record<string, unknown>> }),
    jsonSchema: { input: () => jsonSchema }
  }
})

const t = initTRPC.meta<TrpcCliMeta>().create()

type Tree = { [key: string]: AnyProcedure | Tree }

const place = (tree: Tree, path: string, procedure: AnyProcedure) => {
  const keys = path.split(".")
  const leaf = keys.pop()!
  let node = tree
  for (const key of keys) node = (node[key] ??= {}) as Tree
  node[leaf] = procedure
}

/**
 * A command written by hand for a procedure whose CLI form is not its input (e.g. an import reads
 * a file and calls the procedure once per batch). It keeps the procedure's path and help text.
 */
export interface CustomCommand {
  /** Options and positionals, in trpc-cli's JSON Schema terms (camelCase keys). */
  readonly jsonSchema: JsonSchema
  readonly description: string
  readonly run: (options: Readonly<Record<string, unknown>>) => Promise<void>
}

/**
 * The mirror of `source` whose procedures hand their call to `run`, except the paths `custom`
 * replaces. `reserved` are the global option names, which no derived option may shadow.
 */
export const cliRouter = (
  source: AnyRouter,
  run: (call: Call) => Promise<void>,
  reserved: ReadonlySet<string>,
  custom: Readonly<Record<string, CustomCommand>> = {}
): AnyRouter => {
  const tree: Tree = {}
  for (const [path, info] of parseRouter({ router: source })) {
    // Subscriptions have no one-shot CLI form.
    if (info.type !== "query" && info.type !== "mutation") continue
    if (!info.inputSchemas.success) throw new Error(`${path}: input has no JSON Schema (${info.inputSchemas.error})`)
    // parseRouter hands back the procedure's own meta (core sets no `cliMeta`).
    const meta = info.meta as ProcedureMeta
    // The end-user API is a person's, with their own token: not an operator's command.
    if (meta.scope !== undefined && END_USER_SCOPES.has(meta.scope)) continue
    const own = custom[path]
    if (own !== undefined) {
      const description = [meta.openapi?.summary, own.description, meta.scope && scopeNote[meta.scope]]
        .filter(Boolean)
        .join("\n\n")
      place(
        tree,
        path,
        t.procedure
          .meta({ description })
          .input(passThrough(own.jsonSchema))
          .mutation(({ input }) => own.run(input))
      )
      continue
    }
    const inputSchema = info.inputSchemas.value[0] as JsonSchema | undefined
    const derived = deriveCommand({ path, type: info.type, input: inputSchema, meta }, reserved)
    const procedure = t.procedure
      .meta({ description: descriptionOf(meta), aliases: { options: derived.aliases }, negateBooleans: true })
      .input(passThrough(derived.jsonSchema))
    const forward = ({ input }: { input: Readonly<Record<string, unknown>> }) => run(derived.toCall(input))
    place(tree, path, info.type === "query" ? procedure.query(forward) : procedure.mutation(forward))
  }
  return t.router(tree)
}
