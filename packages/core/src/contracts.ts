import { z } from "zod"

/** Shared wire shapes; each domain's own shapes live in its folder. */

export const Uuid = z.uuid()
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
