import { instanceofZodTypeObject, unwrapZodType } from "trpc-to-openapi"
import type { ZodType } from "zod/v4"

const FIELD = /\{(\w+)\}/g

/**
 * The `Location` of a 201: the created resource's path under the API's base (`meta.location`), each
 * `{field}` filled from the output and percent-encoded as the one path segment it is.
 */
export const locationOf = (base: string, template: string, output: unknown): string =>
  base +
  template.replace(FIELD, (_, field: string) => encodeURIComponent(String((output as Record<string, unknown>)[field])))

/**
 * Fails at start-up, not on a create, when a location template names a field the procedure's output
 * lacks, or a path no route of its API takes (`isRoute`).
 */
export const checkLocation = (
  procedure: string,
  template: string,
  output: ZodType | undefined,
  isRoute: (path: string) => boolean
) => {
  const shape = output === undefined ? undefined : unwrapZodType(output, true)
  const fields = shape !== undefined && instanceofZodTypeObject(shape) ? Object.keys(shape.shape) : []
  for (const [, field] of template.matchAll(FIELD)) {
    if (!fields.includes(field!))
      throw new Error(`${procedure}: location ${template} names ${field}, not in its output`)
  }
  if (!isRoute(template.replace(FIELD, "x"))) throw new Error(`${procedure}: no route takes its location ${template}`)
}
