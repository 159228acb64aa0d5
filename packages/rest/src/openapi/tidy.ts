import { AREAS, type ProcedureEntry } from "@fidelis/core"
import type { Json } from "./responses.js"

/* What the document gets after the generator: less noise, examples where readers look, its tags. */

const MAX_SAFE = Number.MAX_SAFE_INTEGER

/**
 * Formats beside which zod writes a pattern that says the same at length (a date-time's is 320
 * characters): RFC 3339's `date` and `date-time` (offset and seconds required, as zod's), and `uuid`.
 */
const FORMATS_THAT_SAY_IT: ReadonlySet<unknown> = new Set(["uuid", "date", "date-time"])

/**
 * Drops what zod writes for every uuid, date and instant (a long pattern beside the format) and
 * every integer (±2^53 bounds): they say nothing to a reader and make generated validators slower
 * and noisier.
 */
export const tidy = (node: unknown): void => {
  if (typeof node !== "object" || node === null) return
  if (!Array.isArray(node)) {
    const schema = node as Json
    if (FORMATS_THAT_SAY_IT.has(schema["format"])) delete schema["pattern"]
    if (schema["minimum"] === -MAX_SAFE) delete schema["minimum"]
    if (schema["maximum"] === MAX_SAFE) delete schema["maximum"]
  }
  for (const value of Object.values(node)) tidy(value)
}

/**
 * The request body's example, from its input schema's `examples` in core, on each media type where
 * reference pages and generators look for it; the path parameters it also names are not in the body.
 * Read from the input itself: the generator keeps the examples of some bodies only.
 */
export const hoistExample = (operation: Json, input: ProcedureEntry["input"]) => {
  const [example] = (input?.meta()?.["examples"] as ReadonlyArray<Json> | undefined) ?? []
  const content = (operation["requestBody"] as Json | undefined)?.["content"] as Record<string, Json> | undefined
  for (const media of Object.values(content ?? {})) {
    const schema = media["schema"] as Json
    delete schema["examples"]
    if (example === undefined) continue
    const properties = (schema["properties"] as Json | undefined) ?? {}
    media["example"] = Object.fromEntries(Object.entries(example).filter(([name]) => name in properties))
  }
}

/** The tags the document's operations use, in core's order of areas, each with its description. */
export const tagsOf = (paths: Record<string, Record<string, Json>>) => {
  const used = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation["tags"] as ReadonlyArray<string> | undefined) ?? [])
    )
  )
  for (const tag of used) if (AREAS[tag] === undefined) throw new Error(`OpenAPI tag ${tag} has no entry in AREAS`)
  return Object.entries(AREAS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }))
}
