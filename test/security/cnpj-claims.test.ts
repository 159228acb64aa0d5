import { describe, expect, it } from "vitest"
import { expectRefusal, useEndUserServer } from "../support/accounts.js"
import { call, createTenant, type Tenant } from "../support/http.js"
import {
  keyOf,
  newCnpj,
  nfceFixtures,
  onlineQr,
  proveCnpj,
  registerCnpj,
  scan,
  settled,
  wallet
} from "../support/nfce.js"

/**
 * The attack: a CNPJ is claimed twice. Any company may register a CNPJ nobody holds yet, and an
 * admin could then set the same number as another empresa's profile CNPJ: two owners, and the
 * receipts credit whichever the lookup meets first. And a company that registers a store's CNPJ
 * before the store does gets that store's receipts: each scan made the customer its client (name,
 * email) and credited points there. A CNPJ has one owner, and its receipts credit nobody until
 * its claim is proven (by an admin, or as the profile CNPJ an admin set).
 */
const fixtures = nfceFixtures()
const { server, member } = await useEndUserServer(fixtures.env)

const register = (tenant: Tenant, cnpj: string) =>
  call(server, "/api/v1/public/nfce/cnpjs", { key: tenant.key, body: { cnpj } })
const setProfile = (tenant: Tenant, cnpj: string) =>
  call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
    method: "PATCH",
    key: server.adminKey,
    body: { cnpj }
  })
const claimOf = (cnpj: string) => call(server, `/api/v1/internal/nfce/cnpj-claims/${cnpj}`, { key: server.adminKey })
const ok = (total_cents: number) => ({ status: "ok", total_cents, items_count: 1, issued_at: null })

/** A refusal that says the CNPJ is taken, naming the field, and nothing about who holds it. */
const expectTaken = (res: { status: number; body: any }, holder: Tenant) => {
  expectRefusal(res, "CNPJ_TAKEN")
  expect(res.body.detail.message).toMatch(/^cnpj: /)
  const said = JSON.stringify(res.body)
  for (const secret of [holder.empresa.id, holder.empresa.id_name, holder.empresa.name])
    expect(said).not.toContain(secret)
}

describe("a CNPJ claimed by a second empresa", () => {
  it("is refused, whether the second company registers it or an admin puts it on another profile", async () => {
    const [first, second] = await Promise.all([createTenant(server), createTenant(server)])
    const cnpj = newCnpj()
    const registered = await register(first, cnpj)
    expect(registered.status, JSON.stringify(registered.body)).toBe(201)
    // The second owner the review found: an admin's profile change made it.
    const profile = await setProfile(second, cnpj)
    expectTaken(profile, first)
    expectTaken(await register(second, cnpj), first)
    expect(registered.body).toEqual({
      cnpj,
      created_at: expect.any(String),
      proven: false,
      proven_by: null,
      proven_at: null
    })
    const created = await call(server, "/api/v1/internal/empresas", {
      key: server.adminKey,
      body: { name: "Outra Loja", id_name: `outra-${Date.now().toString(36)}`, cnpj }
    })
    expectTaken(created, first)
    expect(
      (await call(server, `/api/v1/internal/empresas/${second.empresa.id}`, { key: server.adminKey })).body.cnpj
    ).toBeNull()

    // And the other way round: a profile CNPJ cannot be registered by another company.
    const profileCnpj = newCnpj()
    expect((await setProfile(second, profileCnpj)).status).toBe(200)
    expectTaken(await register(first, profileCnpj), second)
    expect((await claimOf(profileCnpj)).body).toMatchObject({
      empresa_id: second.empresa.id,
      on_profile: true,
      registered: false,
      proven: true,
      proven_by: "profile"
    })
  })

  it("gives its receipts to nobody until an admin proves the claim, then to its holder", async () => {
    const store = await createTenant(server)
    const cnpj = newCnpj()
    expect((await register(store, cnpj)).status).toBe(201)
    const user = await member(0)
    const key = keyOf({ cnpj })
    fixtures.add({ [key]: ok(2000) })

    const refused = await scan(server, user, onlineQr(key))
    expect(refused.status, JSON.stringify(refused.body)).toBe(422)
    expect(refused.body.detail).toEqual([
      { loc: ["body", "qr_code"], msg: expect.stringContaining("not proven"), type: "cnpj_unproven" }
    ])
    // Nothing recorded there: the user did not become the claimant's client.
    const wallets = (await call(server, "/api/v1/establishments/user/wallets", { headers: user.auth })).body.wallets
    expect(wallets.map((w: any) => w.empresa_id)).not.toContain(store.empresa.id)
    const invoices = await call(server, "/api/v1/public/nfce/invoices", { key: store.key })
    expect(invoices.body.total).toBe(0)

    // The claim's state, where the store reads its CNPJs and their proofs.
    const listed = await call(server, "/api/v1/public/nfce/cnpjs", { key: store.key })
    expect(listed.body.data).toEqual([expect.objectContaining({ cnpj, proven: false, proven_by: null })])
    const proofs = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/proofs`, { key: store.key })
    expect(proofs.body).toMatchObject({ cnpj, proven: false, proven_by: null, proven_at: null })
    const waiting = await call(
      server,
      `/api/v1/internal/nfce/cnpj-claims?proven=false&empresa_id=${store.empresa.id}`,
      {
        key: server.adminKey
      }
    )
    expect(waiting.body.data.map((claim: any) => claim.cnpj)).toEqual([cnpj])

    // Proving names the empresa that was checked: another's claim is not proven by mistake.
    const other = await createTenant(server)
    const wrong = await call(server, `/api/v1/internal/nfce/cnpj-claims/${cnpj}/proof`, {
      method: "PUT",
      key: server.adminKey,
      body: { empresa_id: other.empresa.id }
    })
    expectRefusal(wrong, "CNPJ_TAKEN")
    expect(await proveCnpj(server, store, cnpj)).toMatchObject({
      cnpj,
      empresa_id: store.empresa.id,
      registered: true,
      on_profile: false,
      proven: true,
      proven_by: "admin",
      proven_at: expect.any(String)
    })
    expect((await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/proofs`, { key: store.key })).body).toMatchObject({
      proven: true,
      proven_by: "admin"
    })

    // The refused receipt was not spent: scanned again, it credits the proven holder.
    const accepted = await scan(server, user, onlineQr(key))
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    expect(await settled(server, user, accepted.body.task_id)).toMatchObject({ status: "completed", points: 20 })
    expect((await wallet(server, user, store)).saldo_pontos).toBe(20)
  })

  it("can be taken back by an admin from a company that registered it, and then registered by its owner", async () => {
    const [squatter, owner] = await Promise.all([createTenant(server), createTenant(server)])
    const cnpj = newCnpj()
    expect((await register(squatter, cnpj)).status).toBe(201)
    const released = await call(server, `/api/v1/internal/nfce/cnpj-claims/${cnpj}`, {
      method: "DELETE",
      key: server.adminKey
    })
    expect(released.status, JSON.stringify(released.body)).toBe(200)
    expect(released.body).toMatchObject({ cnpj, empresa_id: squatter.empresa.id, proven: false })
    expect((await call(server, "/api/v1/public/nfce/cnpjs", { key: squatter.key })).body.data).toEqual([])
    expect((await register(owner, cnpj)).status).toBe(201)

    // A profile CNPJ is released by changing the profile, not here.
    const profileOwner = await createTenant(server)
    const profileCnpj = newCnpj()
    await registerCnpj(server, profileOwner, {}, profileCnpj)
    const refused = await call(server, `/api/v1/internal/nfce/cnpj-claims/${profileCnpj}`, {
      method: "DELETE",
      key: server.adminKey
    })
    expectRefusal(refused, "CNPJ_ON_PROFILE")
    expect((await setProfile(profileOwner, newCnpj())).status).toBe(200)
    expect((await claimOf(profileCnpj)).status).toBe(404)
    expect((await register(owner, profileCnpj)).status).toBe(201)
  })

  it("its own registration becomes the profile CNPJ, proven; clearing the profile keeps the registration", async () => {
    const store = await createTenant(server)
    const cnpj = newCnpj()
    expect((await register(store, cnpj)).status).toBe(201)
    expect((await setProfile(store, cnpj)).status).toBe(200)
    expect((await claimOf(cnpj)).body).toMatchObject({ on_profile: true, registered: true, proven_by: "profile" })
    const cleared = await call(server, `/api/v1/internal/empresas/${store.empresa.id}`, {
      method: "PATCH",
      key: server.adminKey,
      body: { cnpj: null }
    })
    expect(cleared.status).toBe(200)
    expect((await claimOf(cnpj)).body).toMatchObject({
      empresa_id: store.empresa.id,
      on_profile: false,
      registered: true,
      proven: true
    })
  })
})

describe("two claims of one CNPJ at once", () => {
  const ROUNDS = 8

  it("exactly one of two companies registering it wins", async () => {
    const [first, second] = await Promise.all([createTenant(server), createTenant(server)])
    for (let round = 0; round < ROUNDS; round++) {
      const cnpj = newCnpj()
      const answers = await Promise.all([register(first, cnpj), register(second, cnpj)])
      expect(answers.map((res) => res.status).toSorted(), JSON.stringify(answers.map((res) => res.body))).toEqual([
        201, 409
      ])
      const winner = answers[0]!.status === 201 ? first : second
      expect((await claimOf(cnpj)).body.empresa_id).toBe(winner.empresa.id)
    }
  })

  it("exactly one of a company's registration and an admin's profile change wins", async () => {
    const [company, profiled] = await Promise.all([createTenant(server), createTenant(server)])
    for (let round = 0; round < ROUNDS; round++) {
      const cnpj = newCnpj()
      const [registered, profile] = await Promise.all([register(company, cnpj), setProfile(profiled, cnpj)])
      const said = JSON.stringify([registered.body, profile.body])
      const won = [registered.status === 201, profile.status === 200]
      expect(won.filter(Boolean), said).toHaveLength(1)
      expect(won[0] ? profile.status : registered.status, said).toBe(409)
      const winner = won[0] ? company : profiled
      const registrations = (await call(server, "/api/v1/public/nfce/cnpjs", { key: company.key })).body.data
      expect(registrations.some((row: any) => row.cnpj === cnpj)).toBe(winner === company)
      const empresa = await call(server, `/api/v1/internal/empresas/${profiled.empresa.id}`, { key: server.adminKey })
      expect(empresa.body.cnpj === cnpj).toBe(winner === profiled)
      expect((await claimOf(cnpj)).body.empresa_id).toBe(winner.empresa.id)
    }
  })
})
