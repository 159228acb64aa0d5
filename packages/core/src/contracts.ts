import { z } from "zod"

/** Shared wire shapes; each domain's own shapes live in its folder. */

export const Uuid = z.uuid()

/**
 * A boolean in a request body: JSON true or false only. (trpc-to-openapi coerces body fields, and
 * `Boolean("false")` would read as true.) In a query string use `z.stringbool()`.
 */
export const Flag = z.union([z.literal(true), z.literal(false)])
export const Timestamp = z.string().describe("ISO 8601 timestamp")

export const PageQuery = {
  page: z.coerce.number().int().min(1).default(1).describe("Page number, from 1"),
  per_page: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100")
}

export const paginated = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
    per_page: z.number().int()
  })

export const pageOf = <T>(data: ReadonlyArray<T>, total: number, page: number, perPage: number) => ({
  data: [...data],
  total,
  page,
  pages: Math.ceil(total / perPage),
  per_page: perPage
})

/** Removes everything but digits: documents and phones arrive formatted in any way. */
export const digitsOnly = (value: string) => value.replace(/\D+/g, "")
