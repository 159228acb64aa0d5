import { z } from "zod"

/** The inputs every analytic shares: the reporting window (`days` back from now) and its grouping. */

export const Days = z.coerce
  .number()
  .int()
  .min(1)
  .max(365)
  .default(30)
  .describe("Window: the last N days, 1 to 365 (default 30)")
export const GroupBy = z
  .enum(["day", "week", "month"])
  .default("day")
  .describe("Period of each series point: day, week or month")
export type GroupBy = z.infer<typeof GroupBy>

/** A window reported as a series, with nothing else to choose. */
export const SeriesInput = z.strictObject({ days: Days, group_by: GroupBy })
