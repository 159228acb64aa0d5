import { z } from "zod"
import { Uuid } from "./contracts.js"

/**
 * The ids of the tenant and the main entities, branded so that one passed where another is
 * expected (a client id for an empresa id) does not compile. zod's brand is static only (`.brand()`
 * returns the schema itself), so every schema, and the REST, tRPC and MCP documents made from
 * them, stays a plain string on the wire. Values become branded where they enter core: parsed
 * inputs, and rows read from the database.
 */

export const EmpresaId = Uuid.brand<"EmpresaId">()
export type EmpresaId = z.infer<typeof EmpresaId>

export const ClientId = Uuid.brand<"ClientId">()
export type ClientId = z.infer<typeof ClientId>

export const ProductId = Uuid.brand<"ProductId">()
export type ProductId = z.infer<typeof ProductId>

export const RewardId = Uuid.brand<"RewardId">()
export type RewardId = z.infer<typeof RewardId>

/** A coupon's code, what clients show and every coupon procedure takes; its row id stays internal. */
export const CouponUid = z.string().brand<"CouponUid">()
export type CouponUid = z.infer<typeof CouponUid>

export const CardId = Uuid.brand<"CardId">()
export type CardId = z.infer<typeof CardId>

export const ProgramId = Uuid.brand<"ProgramId">()
export type ProgramId = z.infer<typeof ProgramId>

export const CampaignId = Uuid.brand<"CampaignId">()
export type CampaignId = z.infer<typeof CampaignId>

export const QuestId = Uuid.brand<"QuestId">()
export type QuestId = z.infer<typeof QuestId>

/** An API key's id (never the key itself). */
export const KeyId = Uuid.brand<"KeyId">()
export type KeyId = z.infer<typeof KeyId>

/** A public survey response (the contact step and the company's list name it). */
export const ResponseId = Uuid.brand<"ResponseId">()
export type ResponseId = z.infer<typeof ResponseId>

/** A message of the email outbox. */
export const EmailMessageId = Uuid.brand<"EmailMessageId">()
export type EmailMessageId = z.infer<typeof EmailMessageId>

/** An end-user account (global, not a tenant's). */
export const UserId = Uuid.brand<"UserId">()
export type UserId = z.infer<typeof UserId>

/** One user's membership of one empresa's team (spec 2.4's team member `id`). */
export const TeamMemberId = Uuid.brand<"TeamMemberId">()
export type TeamMemberId = z.infer<typeof TeamMemberId>
