import { z } from "zod"
import { Flag, HttpUrl, JsonNumber, Timestamp } from "../contracts.js"
import { Cnpj } from "../documents.js"
import { EmpresaId } from "../ids.js"

/** The age limit an empresa gets when it sets none (docs/decisions.md, "NFC-e age limit"). */
export const DEFAULT_NFCE_MAX_AGE_DAYS = 30

/** The largest receipt total (BRL) an empresa accepts when it sets none ("NFC-e: pending offline receipts"). */
export const DEFAULT_NFCE_MAX_TOTAL = 10_000
/** The highest ceiling an empresa may set: `nfce_invoices.valor_total` (numeric(12,2)) holds it. */
export const NFCE_TOTAL_LIMIT = 10_000_000
/** Receipts one user may scan at one store in 24 hours when the empresa sets no other number. */
export const DEFAULT_NFCE_RECEIPTS_PER_DAY = 5

/**
 * A first, offline check that reports with the other fields; the service then holds the zone to
 * the database's own list (Empresas.checkedSettings), which is the rule that matters.
 */
export const isTimeZone = (tz: string) => {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone.length > 0
  } catch {
    return false
  }
}

/** The rolling window of the `referral_bonus_cap` setting, in days. */
export const REFERRAL_CAP_DAYS = 30
const DEFAULT_REFERRAL_BONUS_CAP = 10

/** Known settings only: a typo in a key is a 422, not a silently ignored value. */
export const EmpresaSettings = z.strictObject({
  timezone: z
    .string()
    .max(64)
    .refine(isTimeZone, "Unknown IANA time zone")
    .optional()
    .describe("IANA time zone that the database knows, e.g. America/Sao_Paulo (the default)"),
  point_value: JsonNumber(z.number().positive().max(1000))
    .optional()
    .describe("Value in BRL of one point, for points-for-value coupons"),
  points_per_real: JsonNumber(z.number().min(0).max(1000))
    .optional()
    .describe("Points credited per BRL on NFC-e invoices"),
  nfce_max_age_days: JsonNumber(z.number().int().min(1).max(3650))
    .nullable()
    .optional()
    .describe(`Oldest NFC-e receipt accepted, in days; default ${DEFAULT_NFCE_MAX_AGE_DAYS}, null for no limit`),
  nfce_sandbox: z
    .boolean()
    .optional()
    .describe("Accept test-environment NFC-e invoices (tpAmb 2): for an empresa trying the platform out"),
  nfce_max_total: JsonNumber(z.number().positive().max(NFCE_TOTAL_LIMIT))
    .optional()
    .describe(
      `Largest NFC-e receipt total accepted, in BRL; default ${DEFAULT_NFCE_MAX_TOTAL}. ` +
        "A receipt above it earns nothing"
    ),
  nfce_receipts_per_day: JsonNumber(z.number().int().min(1).max(1000))
    .optional()
    .describe(
      `NFC-e receipts one user may scan here in 24 hours; default ${DEFAULT_NFCE_RECEIPTS_PER_DAY}. ` +
        "Past it, a scan is a 429 with Retry-After"
    ),
  coupon_validity_days: JsonNumber(z.number().int().min(1).max(3650)).optional(),
  redemption_validity_days: JsonNumber(z.number().int().min(1).max(3650)).optional(),
  url_review_avaliation: HttpUrl.optional().describe("Review link shown to promoters after a survey"),
  logo_url: HttpUrl.optional(),
  primary_color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "Use a hex color like #1a2b3c")
    .optional()
    .describe("Brand colour of the public survey page; default #2563eb"),
  alert_email: z
    .email()
    .max(254)
    .nullable()
    .optional()
    .describe("Where low-score survey alerts go; null (the default) sends none"),
  referral_bonus_cap: JsonNumber(z.number().int().min(0).max(1000))
    .nullable()
    .optional()
    .describe(
      `Referrals one referrer is paid bonuses for at this store in any ${REFERRAL_CAP_DAYS} days; ` +
        `default ${DEFAULT_REFERRAL_BONUS_CAP}, null for no cap. Past it a referral still completes, ` +
        "with no bonus to either side"
    )
})
export type EmpresaSettings = z.infer<typeof EmpresaSettings>

/** What an empresa that never set a value gets; the one place core's defaults live. */
const DEFAULT_SETTINGS = {
  timezone: "America/Sao_Paulo",
  /** BRL per point: one centavo, so 100 points = R$ 1,00. */
  point_value: 0.01,
  points_per_real: 1,
  nfce_max_age_days: DEFAULT_NFCE_MAX_AGE_DAYS,
  nfce_sandbox: false,
  nfce_max_total: DEFAULT_NFCE_MAX_TOTAL,
  nfce_receipts_per_day: DEFAULT_NFCE_RECEIPTS_PER_DAY,
  coupon_validity_days: 30,
  redemption_validity_days: 7,
  url_review_avaliation: null,
  logo_url: null,
  /** A blue that keeps white text readable (contrast 5.2:1) on the survey page's buttons. */
  primary_color: "#2563eb",
  alert_email: null,
  referral_bonus_cap: DEFAULT_REFERRAL_BONUS_CAP
} as const satisfies { [K in keyof Required<EmpresaSettings>]: EmpresaSettings[K] | null }

/** Every setting, defaulted. */
export type Settings = {
  readonly [K in keyof typeof DEFAULT_SETTINGS]: Exclude<EmpresaSettings[K], undefined> | (typeof DEFAULT_SETTINGS)[K]
}

/**
 * An empresa's settings as core reads them: typed, with every default filled in. The stored
 * jsonb was validated by `EmpresaSettings` on its way in, so it is read without a second parse.
 */
export const settingsOf = (empresa: { readonly settings: Readonly<Record<string, unknown>> }): Settings => ({
  ...DEFAULT_SETTINGS,
  ...(empresa.settings as EmpresaSettings)
})

const Slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, "Use 1-64 lowercase letters, digits and inner hyphens")
  .describe("Public slug (id_name), used in survey links")

export const Empresa = z
  .object({
    id: EmpresaId,
    name: z.string(),
    id_name: z.string(),
    cnpj: z.string().nullable(),
    plan: z.string(),
    api_access: z.boolean(),
    settings: z.record(z.string(), z.unknown()),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "Empresa",
    examples: [
      {
        id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
        name: "Padaria Sol",
        id_name: "padaria-sol",
        cnpj: "11222333000181",
        plan: "pro",
        api_access: true,
        settings: { timezone: "America/Sao_Paulo", point_value: 0.05 },
        created_at: "2026-10-01T12:00:00.000Z",
        updated_at: "2026-11-20T09:41:52.000Z"
      }
    ]
  })
export type Empresa = z.infer<typeof Empresa>

const EmpresaName = z.string().trim().min(1).max(200).describe("The company's name as people know it")
const Plan = z.string().trim().min(1).max(50).describe("The commercial plan's name, e.g. free or pro")
const PROFILE_CNPJ_DESCRIPTION =
  "The empresa's own CNPJ. A CNPJ belongs to one empresa: one another empresa holds, on its profile or registered " +
  "for NFC-e, is refused (CNPJ_TAKEN). Set by an admin, it counts as proven: its NFC-e receipts credit here"
const SETTINGS_DESCRIPTION =
  "Point value, points per real, validity days, time zone, colours, review link, alert email and other options"

export const CreateEmpresaInput = z
  .strictObject({
    name: EmpresaName,
    id_name: Slug,
    cnpj: Cnpj.optional().describe(PROFILE_CNPJ_DESCRIPTION),
    plan: Plan.default("free"),
    api_access: Flag.default(true).describe("Whether the plan includes the company API and MCP tools"),
    settings: EmpresaSettings.default({}).describe(SETTINGS_DESCRIPTION)
  })
  .meta({
    examples: [
      {
        name: "Padaria Pão Dourado",
        id_name: "padaria-pao-dourado",
        cnpj: "11.222.333/0001-81",
        plan: "pro",
        settings: {
          timezone: "America/Sao_Paulo",
          points_per_real: 1,
          alert_email: "gerencia@paodourado.com.br",
          primary_color: "#c2410c"
        }
      }
    ]
  })
export type CreateEmpresaInput = z.infer<typeof CreateEmpresaInput>

export const EmpresaRef = z.strictObject({ empresa_id: EmpresaId.describe("The empresa's id") })

/** Absent fields stay as they are; `settings` merges key by key, `null` clears a cnpj. */
export const UpdateEmpresaInput = z
  .strictObject({
    empresa_id: EmpresaId.describe("The empresa to change"),
    name: EmpresaName.optional(),
    id_name: Slug.optional(),
    cnpj: Cnpj.nullable().optional().describe(`${PROFILE_CNPJ_DESCRIPTION}; null clears it, freeing the CNPJ`),
    plan: Plan.optional(),
    api_access: Flag.optional().describe("Whether the plan includes the company API and MCP tools"),
    settings: EmpresaSettings.optional().describe(`${SETTINGS_DESCRIPTION}; merged key by key with the current ones`)
  })
  .meta({
    examples: [
      { empresa_id: "2b3c4d5e-6f70-4819-a2b3-c4d5e6f7a8b9", plan: "pro", settings: { coupon_validity_days: 30 } }
    ]
  })
export type UpdateEmpresaInput = z.infer<typeof UpdateEmpresaInput>
