import { SqlClient } from "@effect/sql"
import { inTransaction, onUniqueViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { humanCode } from "../codes.js"
import { Conflict, Forbidden, NotFound, ValidationFailed } from "../errors.js"
import type { EmpresaId, KeyId, TeamMemberId, UserId } from "../ids.js"
import { roleCovers, type FieldRoot, type StaffMembership, type TeamRole } from "../roles.js"
import type { ChangeRoleInput, InviteMemberInput, TeamMember } from "./contracts.js"
import { traced } from "../tracing.js"

/** A role counts once its user has an account (a password) with a verified email, as a balance does. */
const ACTIVE = "u.password_hash IS NOT NULL AND u.email_verified_at IS NOT NULL"

const MEMBER_COLUMNS = `
  m.id, m.user_id, u.nome, u.email, m.role,
  CASE WHEN ${ACTIVE} THEN 'active' ELSE 'invited' END AS status,
  m.created_at`

const memberNotFound = (memberId: TeamMemberId) => new NotFound({ resource: "Team member", id: memberId })

const lastAdmin = () =>
  new Conflict({
    code: "LAST_ADMIN",
    message: "This is the empresa's last empresa_admin: make another member admin first"
  })

/**
 * Empresas' teams (spec 2.4; docs/decisions.md "Team roles"). The company API invites, re-roles
 * and removes members; the end-user API's staff routes authorize through `authorize`.
 */
export class Team extends Effect.Service<Team>()("core/Team", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(MEMBER_COLUMNS)

    const memberById = (empresaId: EmpresaId, memberId: TeamMemberId) =>
      Effect.gen(function* () {
        const [member] = yield* sql<TeamMember>`
          SELECT ${columns} FROM team_members m JOIN users u ON u.id = m.user_id
          WHERE m.empresa_id = ${empresaId} AND m.id = ${memberId}`
        return member ?? (yield* memberNotFound(memberId))
      })

    const list = traced("Team.list")(function* (empresaId: EmpresaId) {
      const members = yield* sql<TeamMember>`
        SELECT ${columns} FROM team_members m JOIN users u ON u.id = m.user_id
        WHERE m.empresa_id = ${empresaId}
        ORDER BY m.created_at, m.id`
      return { members: [...members] }
    })

    /**
     * Adds a person by email. Without an account yet, a password-less user row stands for them
     * (as for a company's client), which registering claims; the role applies once they verify it.
     */
    const invite = traced("Team.invite")(function* (
      empresaId: EmpresaId,
      input: InviteMemberInput,
      invitedBy: KeyId | null
    ) {
      return yield* inTransaction(sql)(
        Effect.gen(function* () {
          const [user] = yield* sql<{ id: UserId }>`
            INSERT INTO users (email, nome, referral_code)
            VALUES (${input.email}, ${input.nome ?? input.email.split("@")[0]!}, ${humanCode(10)})
            ON CONFLICT ((lower(email))) DO UPDATE SET updated_at = users.updated_at
            RETURNING id`
          const [row] = yield* sql<{ id: TeamMemberId }>`
            INSERT INTO team_members (empresa_id, user_id, role, invited_by)
            VALUES (${empresaId}, ${user!.id}, ${input.role}, ${invitedBy})
            RETURNING id`.pipe(
            onUniqueViolation(
              () =>
                new Conflict({
                  code: "TEAM_MEMBER_EXISTS",
                  message: "This email is already on the team: change its role instead"
                })
            )
          )
          // The row was inserted by this transaction: its absence would be a defect, not a 404.
          return yield* Effect.orDie(memberById(empresaId, row!.id))
        })
      )
    })

    /**
     * Refuses a change that leaves no empresa_admin. The empresa row is locked first, so two
     * concurrent demotions of its last two admins cannot both see the other one still there.
     */
    const keepingAnAdmin = (empresaId: EmpresaId, memberId: TeamMemberId, newRole: TeamRole | null) =>
      Effect.gen(function* () {
        yield* sql`SELECT id FROM empresas WHERE id = ${empresaId} FOR NO KEY UPDATE`
        const member = yield* memberById(empresaId, memberId)
        if (member.role !== "empresa_admin" || newRole === "empresa_admin") return member
        const [others] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM team_members
          WHERE empresa_id = ${empresaId} AND role = 'empresa_admin' AND id <> ${memberId}`
        if (others!.count === 0) return yield* lastAdmin()
        return member
      })

    const changeRole = traced("Team.changeRole")(function* (empresaId: EmpresaId, input: ChangeRoleInput) {
      return yield* inTransaction(sql)(
        Effect.gen(function* () {
          yield* keepingAnAdmin(empresaId, input.member_id, input.role)
          yield* sql`
            UPDATE team_members SET role = ${input.role}, updated_at = now()
            WHERE empresa_id = ${empresaId} AND id = ${input.member_id}`
          return yield* memberById(empresaId, input.member_id)
        })
      )
    })

    const remove = traced("Team.remove")(function* (empresaId: EmpresaId, memberId: TeamMemberId) {
      return yield* inTransaction(sql)(
        Effect.gen(function* () {
          const member = yield* keepingAnAdmin(empresaId, memberId, null)
          yield* sql`DELETE FROM team_members WHERE empresa_id = ${empresaId} AND id = ${memberId}`
          return { message: "Removed from the team", member }
        })
      )
    })

    /**
     * The empresa a staff call acts on and the caller's role there, refused with 403 when the role
     * is below `needed`. Without `empresaId`, the one empresa whose team the user is on.
     */
    const authorize = traced("Team.authorize")(function* (
      userId: UserId,
      empresaId: EmpresaId | undefined,
      needed: TeamRole,
      root: FieldRoot
    ) {
      const memberships = yield* sql<{ empresa_id: EmpresaId; role: TeamRole }>`
        SELECT m.empresa_id, m.role FROM team_members m JOIN users u ON u.id = m.user_id
        WHERE m.user_id = ${userId} AND ${sql.literal(ACTIVE)}
          AND (${empresaId ?? null}::uuid IS NULL OR m.empresa_id = ${empresaId ?? null}::uuid)`
      const [membership, ...more] = memberships
      if (more.length > 0) {
        return yield* new ValidationFailed({
          issues: [
            {
              loc: [root, "empresa_id"],
              msg: "You are on the team of several empresas: name the one acted on",
              type: "missing"
            }
          ]
        })
      }
      const needs = (where: string) => `This needs the ${needed} role (or higher) in ${where}`
      if (membership === undefined) {
        const where = empresaId === undefined ? "an empresa" : `empresa ${empresaId}`
        return yield* new Forbidden({ message: `${needs(where)}; you have no role there` })
      }
      if (!roleCovers(membership.role, needed)) {
        return yield* new Forbidden({
          message: `${needs(`empresa ${membership.empresa_id}`)}; you are ${membership.role} there`
        })
      }
      return { empresaId: membership.empresa_id, role: membership.role } satisfies StaffMembership
    })

    return sqlErrorsAsDefects({ list, invite, changeRole, remove, authorize })
  })
}) {}
