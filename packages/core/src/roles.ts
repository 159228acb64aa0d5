import { z } from "zod"
import { EmpresaId } from "./ids.js"

/** Spec 2.4's roles, lowest first: each may do what the ones before it may. */
export const TEAM_ROLES = ["empresa_operator", "empresa_manager", "empresa_admin"] as const

export const TeamRole = z
  .enum(TEAM_ROLES)
  .describe(
    "empresa_operator: validates redemptions and views; empresa_manager: also manages clients and products; " +
      "empresa_admin: everything"
  )
export type TeamRole = z.infer<typeof TeamRole>

/** Whether `role` may do what `needed` may. */
export const roleCovers = (role: TeamRole, needed: TeamRole) => TEAM_ROLES.indexOf(role) >= TEAM_ROLES.indexOf(needed)

/**
 * What every staff route of the end-user API takes beside its own fields: the empresa acted on,
 * optional for a user on one team only.
 */
export const StaffTarget = {
  empresa_id: EmpresaId.optional().describe(
    "The empresa (store) acted on; may be left out by a user who is on one empresa's team only"
  )
}

/** The empresa a staff call acts on, and the caller's role there. */
export interface StaffMembership {
  readonly empresaId: EmpresaId
  readonly role: TeamRole
}

/** Where the staff route's caller sent `empresa_id` (query or body), for a 422's `loc`. */
export type FieldRoot = "query" | "body" | "path"
