import { afterAll, describe, expect, it } from "vitest"
import { fidelis, json } from "../packages/cli/test/bin.js"
import { startSmtpSink, type SmtpSink } from "../packages/core/test/smtp-sink.js"
import {
  bearer,
  call,
  createTenant,
  problem,
  registerAccount,
  uniqueEmail,
  useServer,
  useTenant,
  verifyEmail,
  type Tenant
} from "./support/index.js"

/** The account emails (verification links) arrive here: a role counts only for a verified email. */
const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({ env: { FIDELIS_SMTP_URL: sink.url, FIDELIS_PASSWORD_COST: "10" } })
const tenant = useTenant(server)
const other = useTenant(server)

const team = (owner: Tenant, path = "", options: { method?: string; body?: unknown } = {}) =>
  call(server, `/api/v1/public/team${path}`, { key: owner.key, ...options })

const invite = async (owner: Tenant, email: string, role: string) => {
  const res = await team(owner, "", { body: { email, role } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as { id: string; user_id: string; role: string; status: string }
}

/** A registered account with a verified email. */
const verifiedUser = async () => verifyEmail(server, sink, (await registerAccount(server)).user.email)

/** A verified user holding `role` in `owner`'s empresa. */
const staff = async (owner: Tenant, role: string) => {
  const session = await verifiedUser()
  const member = await invite(owner, session.user.email, role)
  return { ...session, member }
}

const adminTeam = (token: string, query = "") => call(server, `/api/v1/admin/team${query}`, { headers: bearer(token) })

describe("the company API manages the team", () => {
  it("invites, changes the role of and removes members, and keeps one admin", async () => {
    const owner = await createTenant(server)
    const admin = await staff(owner, "empresa_admin")
    expect(admin.member).toMatchObject({ user_id: admin.user.id, role: "empresa_admin", status: "active" })

    const manager = await staff(owner, "empresa_operator")
    const promoted = await team(owner, `/${manager.member.id}`, { method: "PATCH", body: { role: "empresa_manager" } })
    expect(promoted.status).toBe(200)
    expect(promoted.body.role).toBe("empresa_manager")

    const demoteLast = await team(owner, `/${admin.member.id}`, { method: "PATCH", body: { role: "empresa_manager" } })
    expect(demoteLast.status).toBe(409)
    expect(demoteLast.body.detail.code).toBe("LAST_ADMIN")
    const removeLast = await team(owner, `/${admin.member.id}`, { method: "DELETE" })
    expect(removeLast.status).toBe(409)
    expect(removeLast.body.detail.code).toBe("LAST_ADMIN")

    // With a second admin, the first may step down.
    await team(owner, `/${manager.member.id}`, { method: "PATCH", body: { role: "empresa_admin" } })
    const removed = await team(owner, `/${admin.member.id}`, { method: "DELETE" })
    expect(removed.status).toBe(200)
    expect(removed.body.member.id).toBe(admin.member.id)
    const list = await team(owner)
    expect(list.body.members.map((m: { user_id: string }) => m.user_id)).toEqual([manager.user.id])
    expect((await adminTeam(admin.access_token, `?empresa_id=${owner.empresa.id}`)).status).toBe(403)
  })

  it("refuses a second invitation of one email (whatever its case) with 409", async () => {
    const email = uniqueEmail()
    await invite(tenant, email, "empresa_operator")
    const again = await team(tenant, "", { body: { email: email.toUpperCase(), role: "empresa_admin" } })
    expect(again.status).toBe(409)
    expect(again.body.detail.code).toBe("TEAM_MEMBER_EXISTS")
  })

  it("answers 422 for an unknown role or a bad email, naming the field", async () => {
    const bad = await team(tenant, "", { body: { email: uniqueEmail(), role: "owner" } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((i: { loc: string[] }) => i.loc.join("."))).toEqual(["body.role"])
    expect(bad.body.detail[0].msg).toMatch(/empresa_operator/)
    const member = await invite(tenant, uniqueEmail(), "empresa_operator")
    const patch = await team(tenant, `/${member.id}`, { method: "PATCH", body: { role: "operator" } })
    expect(patch.status).toBe(422)
    const email = await team(tenant, "", { body: { email: "nope", role: "empresa_operator" } })
    expect(email.body.detail.map((i: { loc: string[] }) => i.loc.join("."))).toEqual(["body.email"])
  })

  it("answers 404 for another empresa's member", async () => {
    const member = await invite(other, uniqueEmail(), "empresa_operator")
    const patch = await team(tenant, `/${member.id}`, { method: "PATCH", body: { role: "empresa_admin" } })
    expect(patch.status).toBe(404)
    expect(patch.body.code).toBe("NOT_FOUND")
    expect((await team(tenant, `/${member.id}`, { method: "DELETE" })).status).toBe(404)
    expect((await team(other)).body.members.map((m: { id: string }) => m.id)).toContain(member.id)
  })

  it("needs a company key", async () => {
    expect((await call(server, "/api/v1/public/team")).status).toBe(401)
  })
})

describe("GET /admin/team: the end-user API's staff route", () => {
  it("shows the team to every role, and 403 to a user with no role there", async () => {
    const owner = await createTenant(server)
    const admin = await staff(owner, "empresa_admin")
    const manager = await staff(owner, "empresa_manager")
    const operator = await staff(owner, "empresa_operator")
    for (const member of [admin, manager, operator]) {
      const res = await adminTeam(member.access_token)
      expect(res.status).toBe(200)
      expect(res.body.members).toHaveLength(3)
      expect(res.body.members[0]).toMatchObject({
        id: admin.member.id,
        user_id: admin.user.id,
        email: admin.user.email,
        nome: "Ana",
        role: "empresa_admin",
        created_at: expect.any(String)
      })
    }
    const stranger = await verifiedUser()
    const refused = await adminTeam(stranger.access_token)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual(problem(expect.stringContaining("empresa_operator"), "FORBIDDEN"))
    const named = await adminTeam(stranger.access_token, `?empresa_id=${owner.empresa.id}`)
    expect(named.status).toBe(403)
    expect(named.body.detail).toContain(owner.empresa.id)
  })

  it("acts on the empresa named, and asks a user of several teams to name one", async () => {
    const user = await staff(tenant, "empresa_operator")
    await invite(other, user.user.email, "empresa_manager")
    const unnamed = await adminTeam(user.access_token)
    expect(unnamed.status).toBe(422)
    expect(unnamed.body.detail[0].loc).toEqual(["query", "empresa_id"])
    const mine = await adminTeam(user.access_token, `?empresa_id=${other.empresa.id}`)
    expect(mine.status).toBe(200)
    expect(mine.body.members.map((m: { user_id: string }) => m.user_id)).toContain(user.user.id)
    expect((await adminTeam(user.access_token, "?empresa_id=not-a-uuid")).status).toBe(422)
    // Removed from one team, the user is on one only again.
    const member = (await team(other)).body.members.find((m: { user_id: string }) => m.user_id === user.user.id)
    await team(other, `/${member.id}`, { method: "DELETE" })
    expect((await adminTeam(user.access_token)).status).toBe(200)
    expect((await adminTeam(user.access_token, `?empresa_id=${other.empresa.id}`)).status).toBe(403)
  })

  it("attaches an invitation once the invitee registers and verifies the email", async () => {
    const owner = await createTenant(server)
    const email = uniqueEmail()
    const invited = await invite(owner, email, "empresa_admin")
    expect(invited.status).toBe("invited")
    const session = await registerAccount(server, { email, nome: "Bruno Dias" })
    // Registering someone's address is not enough: the mailbox must be proved.
    expect((await adminTeam(session.access_token)).status).toBe(403)
    // The proof ends the registration's session: the app logs in again.
    const verified = await verifyEmail(server, sink, email)
    const res = await adminTeam(verified.access_token)
    expect(res.status).toBe(200)
    expect(res.body.members).toEqual([
      expect.objectContaining({ id: invited.id, user_id: session.user.id, nome: "Bruno Dias", status: "active" })
    ])
  })

  it("refuses a missing or forged token with 401", async () => {
    const missing = await call(server, "/api/v1/admin/team")
    expect(missing.status).toBe(401)
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
    const forged = await adminTeam("eyJhbGciOiJIUzI1NiIsImtpZCI6ImluaXRpYWwifQ.eyJzdWIiOiJ4In0.c2lnbmF0dXJl")
    expect(forged.status).toBe(401)
    expect(forged.body.code).toBe("UNAUTHENTICATED")
  })

  it("is documented with its 403 in the end-user API's document", async () => {
    const doc = await call(server, "/api/v1/openapi.json")
    const operation = doc.body.paths["/admin/team"].get
    expect(operation.security).toEqual([{ bearerAuth: [] }])
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "422"]))
  })
})

describe("the CLI", () => {
  it("invites, lists and re-roles through `fidelis team` with a company key", async () => {
    const owner = await createTenant(server)
    const cli = (...args: string[]) => fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: owner.key })
    const email = uniqueEmail()
    const member = json<{ id: string; role: string }>(
      await cli("team", "invite", "--email", email, "--role", "empresa_operator", "--json")
    )
    expect(member.role).toBe("empresa_operator")
    const changed = json<{ role: string }>(
      await cli("team", "change-role", member.id, "--role", "empresa_admin", "--json")
    )
    expect(changed.role).toBe("empresa_admin")
    const lastAdmin = await cli("team", "remove", member.id, "--yes")
    expect(lastAdmin.code).toBe(5)
    const list = json<{ members: Array<{ email: string }> }>(await cli("team", "list", "--json"))
    expect(list.members.map((m) => m.email)).toEqual([email])
  })
})
