import { z } from "zod"
import { HttpUrl, Instant, Timestamp } from "../contracts.js"
import { Telefone } from "../documents.js"
import { isTimeZone } from "../empresas/contracts.js"
import { EmpresaId } from "../ids.js"
import { WEEKDAYS, type Weekday } from "./hours.js"

const HOURS_RULE = "Use 24-hour HH:MM (00:00 to 23:59; close may also be 24:00)"

const OPEN = /^(?:[01]\d|2[0-3]):[0-5]\d$/
const CLOSE = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/

const DayHours = z
  .strictObject({
    open: z.string().regex(OPEN, HOURS_RULE).describe("Opening time, local HH:MM"),
    close: z
      .string()
      .regex(CLOSE, HOURS_RULE)
      .describe("Closing time, local HH:MM; at or before `open`: it closes the next day (18:00-02:00)")
  })
  .describe("One day's opening hours")

/** Every weekday optional: a day left out (or null) is closed. */
const HoursInput = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((day) => [day, DayHours.nullable().optional()])) as Record<
      Weekday,
      z.ZodOptional<z.ZodNullable<typeof DayHours>>
    >
  )
  .describe("Opening hours by weekday name (monday…sunday); a day left out or null is closed")

const HoursOutput = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((day) => [day, DayHours.optional()])) as Record<
      Weekday,
      z.ZodOptional<typeof DayHours>
    >
  )
  .describe("Opening hours by weekday name; a day that is absent is closed")

const HOURS_EXAMPLE = {
  monday: { open: "08:00", close: "18:00" },
  friday: { open: "18:00", close: "02:00" },
  saturday: { open: "18:00", close: "02:00" }
}

const Text = (max: number) => z.string().trim().min(1).max(max)

/** The company's public profile, as the end-user API shows its store (spec 2.4 "Store"). */
export const StoreProfileInput = z
  .strictObject({
    description: Text(2000).nullable().optional(),
    category: Text(100).nullable().optional().describe("Free text, e.g. Padaria, Restaurante, Bar"),
    address: Text(500).nullable().optional(),
    phone: Telefone.nullable().optional().describe("Brazilian phone; stored as +55 and digits"),
    instagram: z
      .string()
      .regex(/^@?[A-Za-z0-9._]{1,30}$/, "Use an Instagram handle such as @padariasol")
      .transform((handle) => handle.replace(/^@/, ""))
      .nullable()
      .optional()
      .describe("Instagram handle, with or without @"),
    business_hours: HoursInput.optional().describe("Replaces the whole week; a day left out is closed"),
    timezone: z
      .string()
      .max(64)
      .refine(isTimeZone, "Unknown IANA time zone")
      .optional()
      .describe("IANA time zone the hours are in (default America/Sao_Paulo)"),
    logo_url: HttpUrl.nullable().optional()
  })
  .meta({
    examples: [
      {
        description: "Pães artesanais desde 1998",
        category: "Padaria",
        address: "Rua das Flores, 100, São Paulo - SP",
        phone: "+5511987654321",
        instagram: "@padariasol",
        business_hours: HOURS_EXAMPLE,
        timezone: "America/Sao_Paulo",
        logo_url: "https://cdn.example.com/padaria-sol.png"
      }
    ]
  })
export type StoreProfileInput = z.infer<typeof StoreProfileInput>

const profileFields = {
  id: EmpresaId,
  name: z.string(),
  description: z.string().nullable(),
  logo_url: z.string().nullable(),
  category: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  instagram: z.string().nullable(),
  business_hours: HoursOutput,
  timezone: z.string().describe("IANA time zone of the hours")
}

const PROFILE_EXAMPLE = {
  id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
  name: "Padaria Sol",
  description: "Pães artesanais desde 1998",
  logo_url: "https://cdn.example.com/padaria-sol.png",
  category: "Padaria",
  address: "Rua das Flores, 100, São Paulo - SP",
  phone: "+5511987654321",
  instagram: "padariasol",
  business_hours: HOURS_EXAMPLE,
  timezone: "America/Sao_Paulo"
}

export const StoreProfile = z
  .object({ ...profileFields, updated_at: Timestamp })
  .meta({ examples: [{ ...PROFILE_EXAMPLE, updated_at: "2026-11-20T09:41:52.000Z" }] })
export type StoreProfile = z.infer<typeof StoreProfile>

const IsOpen = z.boolean().describe("Open at `at` (default now) in the store's own time zone")

export const StoreDetail = z
  .object({ ...profileFields, is_open: IsOpen })
  .meta({ examples: [{ ...PROFILE_EXAMPLE, is_open: true }] })
export type StoreDetail = z.infer<typeof StoreDetail>

const StoreListItem = z.object({
  id: EmpresaId,
  name: z.string(),
  logo_url: z.string().nullable(),
  category: z.string().nullable(),
  is_open: IsOpen
})

export const StoreList = z
  .object({
    stores: z.array(StoreListItem),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int()
  })
  .meta({
    examples: [
      {
        stores: [
          {
            id: PROFILE_EXAMPLE.id,
            name: "Padaria Sol",
            logo_url: PROFILE_EXAMPLE.logo_url,
            category: "Padaria",
            is_open: true
          }
        ],
        total: 1,
        page: 1,
        limit: 20
      }
    ]
  })
export type StoreList = z.infer<typeof StoreList>

const At = Instant.optional().describe("The instant `is_open` is computed for (ISO 8601); default now")

export const ListStoresInput = z.strictObject({
  page: z.coerce.number().int().min(1).default(1).describe("Page number, from 1"),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Stores per page, 1 to 100"),
  at: At
})
export type ListStoresInput = z.infer<typeof ListStoresInput>

export const StoreRef = z.strictObject({ store_id: EmpresaId.describe("The store's id (its empresa id)") })

export const GetStoreInput = z.strictObject({ ...StoreRef.shape, at: At })
export type GetStoreInput = z.infer<typeof GetStoreInput>
