import { z } from "zod"
import { Instant, PageQuery, Timestamp, Uuid, paginated } from "../contracts.js"
import { ClientId, EmpresaId } from "../ids.js"

/** The four timeline categories of spec section 6. */
export const EventType = z.enum(["purchase", "reward", "referral", "interaction"])
export type EventType = z.infer<typeof EventType>

const TimelineItem = z
  .object({
    id: Uuid,
    type: EventType,
    title: z.string(),
    description: z.string().nullable(),
    points: z.number().int().describe("Points this event added; negative when points were spent"),
    empresa: z.object({ id: EmpresaId, name: z.string(), logo_url: z.string().nullable() }).nullable(),
    metadata: z
      .record(z.string(), z.unknown())
      .describe(
        "Per type: purchase nfce_id, valor_total, items_count; reward reward_uid, product_name; " +
          "referral referred_name, referral_id; interaction interaction_type, quest_name"
      ),
    created_at: Timestamp
  })
  .meta({
    id: "TimelineEvent",
    examples: [
      {
        id: "6f1c2d9e-8a41-4c55-9a0e-3d2b1f0e7a10",
        type: "purchase",
        title: "+50 points",
        description: "Compra #981",
        points: 50,
        empresa: { id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b", name: "Padaria Sol", logo_url: null },
        metadata: { transaction_id: "1e39a610-69fa-4949-9168-6051c019cef0", source: "purchase" },
        created_at: "2026-11-22T10:07:04.490Z"
      }
    ]
  })

export const TimelinePage = paginated(TimelineItem)

/** Repeated `category` query parameters arrive as an array; one arrives as a string. */
const Categories = z
  .union([EventType, z.array(EventType).min(1, "Give at least one category, or leave category out for all")])
  .transform((c) => (Array.isArray(c) ? c : [c]))
  .optional()
  .describe("Only these categories; repeat the parameter for several")

export const TimelineInput = z
  .strictObject({
    client_id: ClientId.describe("Client whose events to list"),
    ...PageQuery,
    category: Categories,
    from: Instant.optional().describe("Events at or after this instant (ISO 8601)"),
    to: Instant.optional().describe("Events before this instant (ISO 8601)")
  })
  .refine((i) => i.from === undefined || i.to === undefined || i.from < i.to, {
    message: "from must be before to",
    path: ["from"]
  })
export type TimelineInput = z.infer<typeof TimelineInput>

/** `GET /timeline` (spec 4.4): the user's events across every store. */
export const UserTimelineInput = z.strictObject({
  page: PageQuery.page,
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100")
})
export type UserTimelineInput = z.infer<typeof UserTimelineInput>

/** Spec 2.1's timeline page. */
export const UserTimelinePage = z.object({
  items: z.array(TimelineItem),
  pagination: z.object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
    has_next: z.boolean(),
    has_prev: z.boolean()
  })
})
