import { companyProcedure, refuses, router, runEffect, staffProcedure } from "../trpc.js"
import {
  ChangeRoleInput,
  InviteMemberInput,
  ListTeamInput,
  MemberRef,
  MemberRemoved,
  TeamMember,
  TeamMembers
} from "./contracts.js"
import { Team } from "./service.js"

const tags = ["Team"]

/**
 * The company API's side: who staffs the empresa. MCP only for admin keys (docs/architecture.md, "Tenancy and
 * identity").
 */
export const teamRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/team",
        tags,
        summary: "List the team",
        description:
          "The empresa's team members, oldest first. `status` `invited`: the person has no account with a " +
          "verified email yet, so the role does not apply until they verify it."
      },
      tool: { name: "list_team_members", readOnly: true, adminOnly: true }
    })
    .input(ListTeamInput)
    .output(TeamMembers)
    .query(({ ctx }) => runEffect(ctx, Team.list(ctx.empresaId))),

  invite: companyProcedure
    .concat(refuses("TEAM_MEMBER_EXISTS"))
    .meta({
      successStatus: 201,
      location: "/team/{id}",
      openapi: {
        method: "POST",
        path: "/team",
        tags,
        summary: "Invite a team member",
        description:
          "Gives the person with this email a role in the empresa. Someone without an account yet is " +
          "invited: the role applies once they register with this email and verify it."
      },
      tool: { name: "invite_team_member", adminOnly: true }
    })
    .input(InviteMemberInput)
    .output(TeamMember)
    .mutation(({ ctx, input }) =>
      runEffect(ctx, Team.invite(ctx.empresaId, input, ctx.principal.kind === "company" ? ctx.principal.keyId : null))
    ),

  changeRole: companyProcedure
    .concat(refuses("NOT_FOUND", "LAST_ADMIN"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/team/{member_id}",
        tags,
        summary: "Change a team member's role",
        description: "Demoting the empresa's last empresa_admin is refused (LAST_ADMIN); nothing changes."
      },
      tool: { name: "change_team_member_role", adminOnly: true }
    })
    .input(ChangeRoleInput)
    .output(TeamMember)
    .mutation(({ ctx, input }) => runEffect(ctx, Team.changeRole(ctx.empresaId, input))),

  remove: companyProcedure
    .concat(refuses("NOT_FOUND", "LAST_ADMIN"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/team/{member_id}",
        tags,
        summary: "Remove a team member",
        description:
          "Ends the person's role in the empresa; their account stays. Removing the last empresa_admin is " +
          "refused (LAST_ADMIN)."
      },
      tool: { name: "remove_team_member", adminOnly: true, destructive: true }
    })
    .input(MemberRef)
    .output(MemberRemoved)
    .mutation(({ ctx, input }) => runEffect(ctx, Team.remove(ctx.empresaId, input.member_id)))
})

/** The end-user API's staff routes (`/admin/…`). */
export const adminRouter = router({
  team: staffProcedure("empresa_operator")
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/team",
        tags,
        summary: "The team of an empresa you staff",
        description:
          "Needs any team role (empresa_operator or higher) in the empresa. `empresa_id` may be left out " +
          "when you are on one empresa's team only."
      }
    })
    .output(TeamMembers)
    .query(({ ctx }) => runEffect(ctx, Team.list(ctx.staff.empresaId)))
})
