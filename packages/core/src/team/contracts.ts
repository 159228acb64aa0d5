import { z } from "zod"
import { Timestamp } from "../contracts.js"
import { Email, Nome } from "../accounts/contracts.js"
import { TeamMemberId, UserId } from "../ids.js"
import { TeamRole } from "../roles.js"

export const TeamMember = z
  .object({
    id: TeamMemberId,
    user_id: UserId,
    nome: z.string(),
    email: z.string(),
    role: TeamRole,
    status: z
      .enum(["invited", "active"])
      .describe("invited: the person has no verified account with this email yet, so the role does not apply"),
    created_at: Timestamp
  })
  .meta({
    examples: [
      {
        id: "6f1c2b7e-9a0d-4c3e-8b5f-2d4e6a8c0b1d",
        user_id: "0b8e5d4c-3a2f-4e1d-9c7b-6a5f4e3d2c1b",
        nome: "Ana Souza",
        email: "ana.souza@example.com",
        role: "empresa_manager",
        status: "active",
        created_at: "2026-03-02T13:45:00.000Z"
      }
    ]
  })
export type TeamMember = z.infer<typeof TeamMember>

export const TeamMembers = z.object({ members: z.array(TeamMember) })

export const ListTeamInput = z.strictObject({})

export const InviteMemberInput = z
  .strictObject({
    email: Email.describe("The person's email: their account's, or the one they will register with"),
    role: TeamRole,
    nome: Nome.optional().describe("Shown until the person registers; default: the email's local part")
  })
  .meta({ examples: [{ email: "caixa.centro@paodourado.com.br", role: "empresa_operator", nome: "Joana Lima" }] })
export type InviteMemberInput = z.infer<typeof InviteMemberInput>

export const MemberRef = z.strictObject({ member_id: TeamMemberId.describe("Team member id") })

export const ChangeRoleInput = z
  .strictObject({ member_id: TeamMemberId.describe("Team member id"), role: TeamRole })
  .meta({ examples: [{ member_id: "6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b", role: "empresa_manager" }] })
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>

export const MemberRemoved = z.object({ message: z.string(), member: TeamMember })
