import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { UserId } from "../src/ids.js"
import { TEAM_ROLES, type TeamRole } from "../src/roles.js"
import { Team } from "../src/team/service.js"
import { newEmpresa, TestCore } from "./support.js"

layer(TestCore, { timeout: 60_000 })("Team.authorize", (it) => {
  it.effect("lets each role do what the roles below it may, and refuses a lower one naming the role needed", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const team = yield* Team
      const empresa = yield* newEmpresa()
      for (const held of TEAM_ROLES) {
        const email = `${held}-${crypto.randomUUID()}@example.com`
        const member = yield* team.invite(empresa.id, { email, role: held }, null)
        // What registering and verifying the email do, without the mail round trip.
        yield* sql`UPDATE users SET password_hash = 'x', email_verified_at = now() WHERE id = ${member.user_id}`
        for (const needed of TEAM_ROLES) {
          const outcome = yield* Effect.either(team.authorize(member.user_id as UserId, empresa.id, needed, "body"))
          const allowed = TEAM_ROLES.indexOf(held) >= TEAM_ROLES.indexOf(needed as TeamRole)
          if (allowed) {
            expect(outcome._tag === "Right" && outcome.right).toEqual({ empresaId: empresa.id, role: held })
          } else {
            expect(outcome._tag === "Left" && outcome.left._tag).toBe("Forbidden")
            expect(outcome._tag === "Left" && outcome.left.message).toContain(`needs the ${needed} role`)
          }
        }
      }
    })
  )
})
