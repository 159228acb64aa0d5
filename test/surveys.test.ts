import { describe, expect, it } from "vitest"
import { fidelis, json } from "../packages/cli/test/bin.js"
import {
  problem,
  call,
  createClient,
  createQuest,
  createTenant,
  DEFAULT_SURVEY_FIELDS,
  updateSettings,
  useServer,
  type ApiResponse,
  type Tenant
} from "./support/index.js"

/**
 * The public survey routes, black box (spec 2.5, 4.3, 7.2): every row of 7.2 and every rule of 4.3.
 * The per-address rate limit has its own file (surveys-rate-limit.test.ts); here it is out of reach.
 */
const server = useServer({ env: { FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000" } })

const BASE = "/api/v1/public/quests"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const REVIEW = "https://g.page/r/loja-teste/review"

type Json = Record<string, any>

// The three routes take no key: none is ever sent here.
const active = (ref: string) => call(server, `${BASE}/${encodeURIComponent(ref)}/active`)
const submit = (ref: string, questId: string, response: unknown, headers: Record<string, string> = {}) =>
  call(server, `${BASE}/${encodeURIComponent(ref)}/${questId}/responses`, { body: { response }, headers })
const saveContact = (ref: string, responseId: string, body: Json) =>
  call(server, `${BASE}/${encodeURIComponent(ref)}/${responseId}/contact`, { method: "PATCH", body })

/** The quest a tenant serves now. */
const servedQuest = async (tenant: Tenant): Promise<string> => {
  const res = await active(tenant.empresa.id_name)
  expect(res.status).toBe(200)
  return res.body.quest_id
}

/** A response that must be accepted; its submission result. */
const answered = async (tenant: Tenant, response: Json, headers: Record<string, string> = {}) => {
  const res = await submit(tenant.empresa.id_name, await servedQuest(tenant), response, headers)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as Json
}

/** The company's list of a quest's responses (REST, with the tenant's key). */
const listed = async (tenant: Tenant, questId: string, query = "") => {
  const res = await call(server, `${BASE}/${questId}/responses${query}`, { key: tenant.key })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body as { data: Array<Json>; total: number; page: number; pages: number; per_page: number }
}

const expectDetail = (res: ApiResponse, status: number, pattern: RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  const code = { 400: "BAD_REQUEST", 404: "NOT_FOUND", 409: "DUPLICATE_RESPONSE" }[status]
  expect(res.body).toEqual(problem(expect.stringMatching(pattern), code ?? "unexpected status"))
}

describe("GET /quests/{estabelecimento_ref}/active (spec 2.5, 4.3)", () => {
  it("serves the default standard_csat_nps survey, created on first need, by slug and by UUID", async () => {
    const tenant = await createTenant(server)
    const bySlug = await active(tenant.empresa.id_name)
    expect(bySlug.status).toBe(200)
    expect(bySlug.body).toEqual({
      quest_id: expect.stringMatching(UUID),
      empresa_id: tenant.empresa.id,
      survey_type: "standard_csat_nps",
      estabelecimento_slug: tenant.empresa.id_name,
      estabelecimento_nome: tenant.empresa.name,
      name: "Pesquisa de satisfação",
      description: "Sua opinião nos ajuda a melhorar.",
      research: { fields: DEFAULT_SURVEY_FIELDS },
      valid_until: null,
      cta_review_configured: false,
      profile_picture: null,
      primary_color: "#2563eb"
    })
    expect((await active(tenant.empresa.id)).body).toEqual(bySlug.body)
    expect((await active(tenant.empresa.id_name.toUpperCase())).body).toEqual(bySlug.body)
    // The survey it created is the default one the company lists.
    const quests = await call(server, BASE, { key: tenant.key })
    expect(quests.body).toEqual([expect.objectContaining({ id: bySlug.body.quest_id, is_default: true })])
  })

  it("carries the establishment's review link flag, picture and colour from its settings", async () => {
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, {
      url_review_avaliation: REVIEW,
      logo_url: "https://loja.example.com/logo.png",
      primary_color: "#aa3300"
    })
    expect((await active(tenant.empresa.id_name)).body).toMatchObject({
      cta_review_configured: true,
      profile_picture: "https://loja.example.com/logo.png",
      primary_color: "#aa3300"
    })
  })

  it("serves the newest active, public custom survey within valid_until, else the default", async () => {
    const tenant = await createTenant(server)
    const fallback = await servedQuest(tenant)
    const older = await createQuest(server, tenant, {
      name: "Cardápio",
      research: { fields: [{ id: "sabor", type: "rating", label: "Sabor", required: true, min: 1, max: 5 }] },
      valid_until: "2099-01-01T00:00:00Z",
      cta_review_on_promoter: true
    })
    const res = await active(tenant.empresa.id_name)
    expect(res.body).toMatchObject({
      quest_id: older.id,
      survey_type: "custom",
      name: "Cardápio",
      valid_until: "2099-01-01T00:00:00.000Z",
      research: { fields: [{ id: "sabor", type: "rating", label: "Sabor", required: true, min: 1, max: 5 }] }
    })
    // Private, paused or expired surveys are never served.
    await createQuest(server, tenant, { name: "Privada", is_public: false, research: older["research"] })
    await createQuest(server, tenant, { name: "Pausada", active: false, research: older["research"] })
    await createQuest(server, tenant, {
      name: "Vencida",
      valid_until: "2020-01-01T00:00:00Z",
      research: older["research"]
    })
    expect(await servedQuest(tenant)).toBe(older.id)
    await call(server, `${BASE}/${older.id}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    expect(await servedQuest(tenant)).toBe(fallback)
  })

  it("404 with two distinct details: establishment not found, no active public survey", async () => {
    for (const ref of ["nao-existe-loja", "00000000-0000-4000-8000-000000000000", "x".repeat(255)]) {
      expectDetail(await active(ref), 404, /^Establishment .* not found$/)
    }
    const tenant = await createTenant(server)
    const quest = await servedQuest(tenant)
    await call(server, `${BASE}/${quest}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    const none = await active(tenant.empresa.id_name)
    expectDetail(none, 404, /^Active public survey of establishment .* not found$/)
    expect(none.body.detail).not.toMatch(/^Establishment/)
  })
})

describe("POST /quests/{estabelecimento_ref}/{quest_id}/responses (spec 4.3, 7.2)", () => {
  it("records a response: 201 with the submission result; the company lists it", async () => {
    const tenant = await createTenant(server)
    const questId = await servedQuest(tenant)
    const res = await submit(tenant.empresa.id, questId, { csat: 4, nps: 8, comment: "Bom café" })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      response_id: expect.stringMatching(UUID),
      quest_id: questId,
      empresa_id: tenant.empresa.id,
      submitted_at: expect.stringMatching(ISO),
      cta_review_enabled: false,
      cta_review_url: null,
      low_score_alert_sent: false
    })
    const list = await listed(tenant, questId)
    expect(list).toMatchObject({ total: 1, page: 1, pages: 1, per_page: 20 })
    expect(list.data).toEqual([
      {
        id: res.body.response_id,
        quest_id: questId,
        answers: { csat: 4, nps: 8, comment: "Bom café" },
        csat: 4,
        nps: 8,
        band: "passive",
        low_score: false,
        client_name: null,
        client_phone: null,
        contact_at: null,
        cta_review_enabled: false,
        low_score_alert_sent: false,
        submitted_at: res.body.submitted_at
      }
    ])
  })

  it("400 when the quest is not the establishment's active public survey", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const standard = await servedQuest(tenant)
    const custom = await createQuest(server, tenant, {
      name: "Nova",
      research: { fields: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 1, max: 5 }] }
    })
    const paused = await createQuest(server, tenant, { name: "Pausada", active: false, research: custom["research"] })
    const notServed = [
      standard, // replaced by the custom survey
      paused.id,
      await servedQuest(other), // another establishment's
      "00000000-0000-4000-8000-000000000000"
    ]
    for (const questId of notServed) {
      expectDetail(
        await submit(tenant.empresa.id_name, questId, { nota: 5 }),
        400,
        /is not the active public survey of this establishment/
      )
    }
    expect((await submit(tenant.empresa.id_name, custom.id, { nota: 5 })).status).toBe(201)
    // A survey switched off entirely: nothing is served, so no quest is the active one.
    await call(server, `${BASE}/${custom.id}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    await call(server, `${BASE}/${standard}`, { key: tenant.key, method: "PATCH", body: { active: false } })
    expectDetail(await submit(tenant.empresa.id_name, standard, { csat: 5, nps: 10 }), 400, /not the active/)
  })

  it("400 naming each missing or invalid answer; nothing is stored", async () => {
    const tenant = await createTenant(server)
    const questId = await servedQuest(tenant)
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [{ nps: 9 }, /response\.csat: a required answer is missing/],
      [{ csat: 5 }, /response\.nps: a required answer is missing/],
      [{}, /response\.csat: .*missing; response\.nps: .*missing/],
      [{ csat: null, nps: 9 }, /response\.csat: a required answer is missing/],
      [{ csat: 0, nps: 9 }, /response\.csat: must be a whole number from 1 to 5/],
      [{ csat: 6, nps: 9 }, /response\.csat: must be a whole number from 1 to 5/],
      [{ csat: 5, nps: 11 }, /response\.nps: must be a whole number from 0 to 10/],
      [{ csat: 5, nps: -1 }, /response\.nps: must be a whole number from 0 to 10/],
      [{ csat: 4.5, nps: 9 }, /response\.csat: must be a whole number/],
      [{ csat: "5", nps: 9 }, /response\.csat: must be a whole number/],
      [{ csat: true, nps: 9 }, /response\.csat: must be a whole number/],
      [{ csat: 5, nps: 9, comment: 7 }, /response\.comment: must be text/],
      [{ csat: 5, nps: 9, comment: "x".repeat(2001) }, /response\.comment: must be at most 2000 characters/],
      [{ csat: 5, nps: 9, sabor: 5 }, /response\.sabor: this survey has no such question/]
    ]
    for (const [response, detail] of cases) {
      expectDetail(await submit(tenant.empresa.id_name, questId, response), 400, detail)
    }
    expect((await listed(tenant, questId)).total).toBe(0)
    // An optional answer may be left out, null or empty.
    for (const comment of [undefined, null, "", "x".repeat(2000)]) {
      expect((await submit(tenant.empresa.id_name, questId, { csat: 3, nps: 7, comment })).status).toBe(201)
    }
    const kept = await listed(tenant, questId)
    expect(kept.data.map((r) => r["answers"])).toEqual([
      { csat: 3, nps: 7, comment: "x".repeat(2000) },
      { csat: 3, nps: 7 },
      { csat: 3, nps: 7 },
      { csat: 3, nps: 7 }
    ])
  })

  it("a custom survey's answers are checked against its own fields", async () => {
    const tenant = await createTenant(server)
    await createQuest(server, tenant, {
      name: "Visita",
      research: {
        fields: [
          { id: "atendimento", type: "rating", label: "Atendimento", required: true, min: 0, max: 3 },
          { id: "sugestao", type: "text", label: "Sugestão", required: true }
        ]
      }
    })
    const questId = await servedQuest(tenant)
    expectDetail(
      await submit(tenant.empresa.id_name, questId, { atendimento: 3 }),
      400,
      /response\.sugestao: .*missing/
    )
    expectDetail(
      await submit(tenant.empresa.id_name, questId, { atendimento: 4, sugestao: "Mais mesas" }),
      400,
      /response\.atendimento: must be a whole number from 0 to 3/
    )
    expectDetail(await submit(tenant.empresa.id_name, questId, { atendimento: 3, sugestao: "" }), 400, /missing/)
    expect((await submit(tenant.empresa.id_name, questId, { atendimento: 0, sugestao: "Mais mesas" })).status).toBe(201)
  })

  it("422 in the validation shape when the body itself is malformed; 404 for an unknown establishment", async () => {
    const tenant = await createTenant(server)
    const questId = await servedQuest(tenant)
    const url = `${BASE}/${tenant.empresa.id_name}/${questId}/responses`
    const missing = await call(server, url, { body: {} })
    expect(missing.status).toBe(422)
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ["body", "response"], type: "missing" })])
    const notAnObject = await call(server, url, { body: { response: [5, 9] } })
    expect(notAnObject.status).toBe(422)
    expect(notAnObject.body.detail[0]).toMatchObject({ loc: ["body", "response"] })
    const badId = await call(server, `${BASE}/${tenant.empresa.id_name}/not-a-uuid/responses`, {
      body: { response: { csat: 5, nps: 9 } }
    })
    expect(badId.status).toBe(422)
    expect(badId.body.detail[0]).toMatchObject({ loc: ["path", "quest_id"], type: "uuid_parsing" })
    expectDetail(await submit("nao-existe-loja", questId, { csat: 5, nps: 9 }), 404, /^Establishment .* not found$/)
  })

  it("a response with the X-Idempotency-Key of an earlier one is refused with 409; keys are per survey", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const questId = await servedQuest(tenant)
    const key = { "X-Idempotency-Key": "form-abc-123" }
    const first = await submit(tenant.empresa.id_name, questId, { csat: 5, nps: 10 }, key)
    expect(first.status).toBe(201)
    // Same key: refused whether the answers match or not, and nothing more is stored.
    for (const response of [
      { csat: 5, nps: 10 },
      { csat: 1, nps: 0 }
    ]) {
      expectDetail(await submit(tenant.empresa.id_name, questId, response, key), 409, /^Duplicate response/)
    }
    expect((await listed(tenant, questId)).total).toBe(1)
    // Another key, no key (twice), and the same key at another establishment are all new responses.
    expect(
      (await submit(tenant.empresa.id_name, questId, { csat: 5, nps: 10 }, { "X-Idempotency-Key": "f2" })).status
    ).toBe(201)
    expect((await submit(tenant.empresa.id_name, questId, { csat: 5, nps: 10 })).status).toBe(201)
    expect((await submit(tenant.empresa.id_name, questId, { csat: 5, nps: 10 })).status).toBe(201)
    expect((await submit(other.empresa.id_name, await servedQuest(other), { csat: 5, nps: 10 }, key)).status).toBe(201)
    expect((await listed(tenant, questId)).total).toBe(4)
    // An invalid key is a 422 on the header, before anything runs.
    const long = await submit(
      tenant.empresa.id_name,
      questId,
      { csat: 5, nps: 10 },
      { "X-Idempotency-Key": "k".repeat(256) }
    )
    expect(long.status).toBe(422)
    expect(long.body.detail[0]).toMatchObject({ loc: ["header", "X-Idempotency-Key"], type: "string_too_long" })
  })

  it("20 parallel submissions with one X-Idempotency-Key store exactly one response", async () => {
    const tenant = await createTenant(server)
    const questId = await servedQuest(tenant)
    const key = { "X-Idempotency-Key": `parallel-${Date.now()}` }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        submit(tenant.empresa.id_name, questId, { csat: 1 + (i % 5), nps: i % 11 }, key)
      )
    )
    const statuses = results.map((r) => r.status).toSorted()
    expect(statuses).toEqual([201, ...Array<number>(19).fill(409)])
    const list = await listed(tenant, questId)
    expect(list.total).toBe(1)
    expect(list.data[0]!["id"]).toBe(results.find((r) => r.status === 201)!.body.response_id)
  })
})

/** Spec 4.3 rule 4: CSAT gives it only for 5, NPS only for 9 or 10; every score the response has must. */
const promoter = (csat: number | undefined, nps: number | undefined) =>
  (csat !== undefined || nps !== undefined) && (csat === undefined || csat === 5) && (nps === undefined || nps >= 9)

/** What the submission of these answers offers. */
const offered = async (tenant: Tenant, response: Json) => {
  const result = await answered(tenant, response)
  return { response, enabled: result["cta_review_enabled"], url: result["cta_review_url"] }
}
/** A row of the matrix as the rule expects it. */
const matrixRow = (response: Json, enabled: boolean) => ({ response, enabled, url: enabled ? REVIEW : null })

describe("the review call-to-action (spec 4.3 rule 4 and 5)", () => {
  it("standard survey: every CSAT and NPS score, with and without a review link", async () => {
    const withLink = await createTenant(server)
    await updateSettings(server, withLink, { url_review_avaliation: REVIEW })
    const withoutLink = await createTenant(server)
    const actual: Array<Json> = []
    const expected: Array<Json> = []
    for (let csat = 1; csat <= 5; csat++) {
      for (let nps = 0; nps <= 10; nps++) {
        actual.push(await offered(withLink, { csat, nps }), await offered(withoutLink, { csat, nps }))
        expected.push(matrixRow({ csat, nps }, promoter(csat, nps)), matrixRow({ csat, nps }, false))
      }
    }
    expect(actual).toEqual(expected)
    // The matrix's corners, spelled out.
    expect([promoter(5, 9), promoter(5, 10), promoter(5, 8), promoter(4, 10), promoter(1, 10)]).toEqual([
      true,
      true,
      false,
      false,
      false
    ])
  })

  it("custom surveys also need cta_review_on_promoter; CSAT-only and NPS-only surveys", async () => {
    const shapes = {
      csatOnly: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 1, max: 5 }],
      npsOnly: [{ id: "recomenda", type: "rating", label: "Recomendaria?", required: true, min: 0, max: 10 }],
      both: [
        { id: "sabor", type: "rating", label: "Sabor", required: true, min: 1, max: 5 },
        { id: "indicaria", type: "rating", label: "Indicaria?", required: true, min: 0, max: 10 }
      ]
    }
    const actual: Array<Json> = []
    const expected: Array<Json> = []
    for (const link of [true, false]) {
      for (const optIn of [true, false]) {
        const tenant = await createTenant(server)
        if (link) await updateSettings(server, tenant, { url_review_avaliation: REVIEW })
        const check = async (response: Json, csat: number | undefined, nps: number | undefined) => {
          actual.push({ link, optIn, ...(await offered(tenant, response)) })
          expected.push({ link, optIn, ...matrixRow(response, link && optIn && promoter(csat, nps)) })
        }
        const survey = (fields: ReadonlyArray<Json>) =>
          createQuest(server, tenant, { name: "Custom", research: { fields }, cta_review_on_promoter: optIn })

        await survey(shapes.csatOnly)
        for (let csat = 1; csat <= 5; csat++) await check({ nota: csat }, csat, undefined)
        await survey(shapes.npsOnly)
        for (let nps = 0; nps <= 10; nps++) await check({ recomenda: nps }, undefined, nps)
        await survey(shapes.both)
        for (const [csat, nps] of [
          [5, 9],
          [5, 10],
          [5, 8],
          [4, 9],
          [1, 0]
        ] as const) {
          await check({ sabor: csat, indicaria: nps }, csat, nps)
        }
      }
    }
    expect(actual).toEqual(expected)
    expect(expected.filter((r) => r["enabled"])).toHaveLength(1 + 2 + 2)
  })

  it("a custom survey with no CSAT or NPS scale never offers it", async () => {
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { url_review_avaliation: REVIEW })
    await createQuest(server, tenant, {
      name: "Livre",
      research: { fields: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 0, max: 3 }] },
      cta_review_on_promoter: true
    })
    expect(await offered(tenant, { nota: 3 })).toEqual(matrixRow({ nota: 3 }, false))
  })
})

/** A tenant with one response (not a promoter's), for the contact step. */
const respondent = async () => {
  const tenant = await createTenant(server)
  const submitted = await answered(tenant, { csat: 3, nps: 6 })
  return { tenant, responseId: submitted["response_id"] as string, submitted }
}

describe("PATCH /quests/{estabelecimento_ref}/{response_id}/contact (spec 4.3 contact rules, 7.2)", () => {
  it("stores the name and the phone's digits and answers the contact result", async () => {
    const { tenant, responseId, submitted } = await respondent()
    const res = await saveContact(tenant.empresa.id_name, responseId, {
      client_name: "  Maria Souza ",
      client_phone: "(11) 91234-5678"
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      success: true,
      response_id: responseId,
      quest_id: submitted["quest_id"],
      empresa_id: tenant.empresa.id,
      submitted_at: submitted["submitted_at"],
      client_name: "Maria Souza",
      client_phone: "11912345678",
      referral_invite: false
    })
    const [row] = (await listed(tenant, submitted["quest_id"])).data
    expect(row).toMatchObject({
      client_name: "Maria Souza",
      client_phone: "11912345678",
      contact_at: expect.stringMatching(ISO)
    })
  })

  it("accepts real Brazilian numbers: mobile and landline, with and without 55, in any formatting", async () => {
    const { tenant, responseId } = await respondent()
    const valid: ReadonlyArray<readonly [string, string]> = [
      ["(11) 91234-5678", "11912345678"], // São Paulo mobile
      ["11912345678", "11912345678"],
      ["(21) 3456-7890", "2134567890"], // Rio de Janeiro landline
      ["61 3322-1100", "6133221100"], // Brasília landline
      ["+55 11 91234-5678", "5511912345678"],
      ["55 (21) 3456-7890", "552134567890"],
      ["+55 (92) 98123-4567", "5592981234567"], // Manaus mobile
      ["55 55 3222-1234", "555532221234"], // Santa Maria (DDD 55) landline, with 55
      ["5532221234", "5532221234"], // the same, without 55
      ["+55.51.99876.5432", "5551998765432"] // Porto Alegre mobile, dots
    ]
    for (const [phone, digits] of valid) {
      const res = await saveContact(tenant.empresa.id_name, responseId, { client_phone: phone })
      expect({ phone, status: res.status, stored: res.body.client_phone }).toEqual({
        phone,
        status: 200,
        stored: digits
      })
    }
  })

  it("400 asking for a valid area code: invalid DDDs, too short, too long, not Brazilian", async () => {
    const { tenant, responseId } = await respondent()
    const invalidAreaCodes = [
      "00", "10", "20", "23", "25", "26", "29", "30", "36", "39", "40", "50",
      "52", "56", "57", "58", "59", "60", "70", "72", "76", "78", "80", "90"
    ] // prettier-ignore
    const invalid = [
      ...invalidAreaCodes.flatMap((ddd) => [`(${ddd}) 91234-5678`, `(${ddd}) 3456-7890`, `+55 ${ddd} 91234-5678`]),
      "11 1234-5678", // a landline starts with 2 to 5
      "11 81234-5678", // 11 digits: a mobile, which starts with 9
      "119123456", // too short (9 digits)
      "1234", // too short
      "119123456789", // too long (12 digits without 55)
      "55119123456789", // too long (14 digits)
      "+1 415 555 0100", // another country
      "+44 20 7946 0958"
    ]
    for (const phone of invalid) {
      const res = await saveContact(tenant.empresa.id_name, responseId, { client_phone: phone })
      expect({ phone, status: res.status }).toEqual({ phone, status: 400 })
      expect(res.body).toEqual(problem(expect.stringMatching(/valid area code/), "BAD_REQUEST"))
    }
    // Nothing was stored by the refusals.
    const [row] = (await listed(tenant, (await active(tenant.empresa.id_name)).body.quest_id)).data
    expect(row).toMatchObject({ client_phone: null, contact_at: null })
  })

  it("empty values are stored as null; absent ones stay as they are", async () => {
    const { tenant, responseId } = await respondent()
    const ref = tenant.empresa.id_name
    await saveContact(ref, responseId, { client_name: "Ana", client_phone: "21 3456-7890" })
    expect((await saveContact(ref, responseId, { client_name: "Bia" })).body).toMatchObject({
      client_name: "Bia",
      client_phone: "2134567890"
    })
    expect((await saveContact(ref, responseId, {})).body).toMatchObject({
      client_name: "Bia",
      client_phone: "2134567890"
    })
    for (const empty of [
      { client_name: "", client_phone: "" },
      { client_name: "   ", client_phone: "(  ) -" }
    ]) {
      await saveContact(ref, responseId, { client_name: "Bia", client_phone: "21 3456-7890" })
      const res = await saveContact(ref, responseId, empty)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ client_name: null, client_phone: null })
    }
    expect((await saveContact(ref, responseId, { client_name: null, client_phone: null })).body).toMatchObject({
      client_name: null,
      client_phone: null
    })
  })

  it("422 string_too_long past 120 characters of name or 30 of phone", async () => {
    const { tenant, responseId } = await respondent()
    const ref = tenant.empresa.id_name
    expect((await saveContact(ref, responseId, { client_name: "n".repeat(120) })).status).toBe(200)
    const name = await saveContact(ref, responseId, { client_name: "n".repeat(121) })
    expect(name.status).toBe(422)
    expect(name.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "client_name"], type: "string_too_long", msg: expect.any(String) })
    ])
    expect((await saveContact(ref, responseId, { client_phone: "+55 (11) 91234-5678".padEnd(30) })).status).toBe(200)
    const phone = await saveContact(ref, responseId, { client_phone: "+55 (11) 91234-5678".padEnd(31) })
    expect(phone.status).toBe(422)
    expect(phone.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "client_phone"], type: "string_too_long" })
    ])
  })

  it("404: establishment not found; response not found for this establishment", async () => {
    const { tenant, responseId } = await respondent()
    const other = await createTenant(server)
    expectDetail(
      await saveContact("nao-existe-loja", responseId, { client_name: "Ana" }),
      404,
      /^Establishment .* not found$/
    )
    // Another establishment's response is not reachable through this one, by slug or UUID.
    for (const ref of [other.empresa.id_name, other.empresa.id]) {
      expectDetail(await saveContact(ref, responseId, { client_name: "Ana" }), 404, /^Response .* not found$/)
    }
    expectDetail(
      await saveContact(tenant.empresa.id, "00000000-0000-4000-8000-000000000000", { client_name: "Ana" }),
      404,
      /^Response .* not found$/
    )
    const [row] = (await listed(tenant, (await active(tenant.empresa.id)).body.quest_id)).data
    expect(row).toMatchObject({ client_name: null })
  })

  it("says a promoter's phone gets a referral invitation, the same whether or not it is a client's", async () => {
    const tenant = await createTenant(server)
    await createClient(server, tenant, { nome: "Cliente Um", telefone: "+55 11 91234-5678" })
    const ref = tenant.empresa.id_name
    const contactAfter = async (scores: Json, phone: string) =>
      (await saveContact(ref, (await answered(tenant, scores))["response_id"], { client_phone: phone })).body as Json

    for (const phone of ["11 91234-5678", "+55 (11) 91234-5678", "11 99999-0000"]) {
      const body = await contactAfter({ csat: 5, nps: 10 }, phone)
      expect(body["referral_invite"], phone).toBe(true)
      expect(body).not.toHaveProperty("referral_code")
    }
    // Not a promoter, or no phone: no invitation.
    for (const [scores, phone] of [
      [{ csat: 5, nps: 8 }, "11 91234-5678"],
      [{ csat: 4, nps: 10 }, "11 91234-5678"],
      [{ csat: 1, nps: 0 }, "11 91234-5678"],
      [{ csat: 5, nps: 10 }, ""]
    ] as const) {
      expect((await contactAfter(scores, phone))["referral_invite"], `${JSON.stringify(scores)} ${phone}`).toBe(false)
    }
  })
})

describe("GET /quests/{quest_id}/responses: the company's list", () => {
  it("filters by band (NPS first, else CSAT) and by submission time, newest first, paginated", async () => {
    const tenant = await createTenant(server)
    const questId = await servedQuest(tenant)
    const scores = [
      { csat: 5, nps: 10 }, // promoter
      { csat: 1, nps: 9 }, // promoter by NPS
      { csat: 5, nps: 8 }, // passive
      { csat: 4, nps: 7 }, // passive
      { csat: 5, nps: 6 }, // detractor
      { csat: 2, nps: 0 } // detractor, low score
    ]
    const ids: Array<string> = []
    for (const response of scores) ids.push((await answered(tenant, response))["response_id"])
    const all = await listed(tenant, questId)
    expect(all.data.map((r) => r["id"])).toEqual(ids.toReversed())
    expect(all.data.map((r) => [r["band"], r["low_score"]]).toReversed()).toEqual([
      ["promoter", false],
      ["promoter", true],
      ["passive", false],
      ["passive", false],
      ["detractor", true],
      ["detractor", true]
    ])
    const band = async (name: string) => (await listed(tenant, questId, `?band=${name}`)).data.map((r) => r["id"])
    expect(await band("promoter")).toEqual([ids[1], ids[0]])
    expect(await band("passive")).toEqual([ids[3], ids[2]])
    expect(await band("detractor")).toEqual([ids[5], ids[4]])

    const page = await listed(tenant, questId, "?per_page=4&page=2")
    expect(page).toMatchObject({ total: 6, page: 2, pages: 2, per_page: 4 })
    expect(page.data.map((r) => r["id"])).toEqual([ids[1], ids[0]])

    const middle = all.data.find((r) => r["id"] === ids[3])!["submitted_at"] as string
    const from = await listed(tenant, questId, `?from=${encodeURIComponent(middle)}`)
    expect(from.data.map((r) => r["id"])).toEqual([ids[5], ids[4], ids[3]])
    const to = await listed(tenant, questId, `?to=${encodeURIComponent(middle)}&band=promoter`)
    expect(to.data.map((r) => r["id"])).toEqual([ids[1], ids[0]])
    expect((await listed(tenant, questId, "?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z")).total).toBe(0)
  })

  it("a CSAT-only survey's band comes from CSAT: 5 promoter, 4 passive, 1-3 detractor", async () => {
    const tenant = await createTenant(server)
    const quest = await createQuest(server, tenant, {
      name: "CSAT",
      research: { fields: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 1, max: 5 }] }
    })
    for (let nota = 1; nota <= 5; nota++) await answered(tenant, { nota })
    const bands = (await listed(tenant, quest.id)).data.map((r) => [r["csat"], r["nps"], r["band"]])
    expect(bands.toReversed()).toEqual([
      [1, null, "detractor"],
      [2, null, "detractor"],
      [3, null, "detractor"],
      [4, null, "passive"],
      [5, null, "promoter"]
    ])
  })

  it("404 for another empresa's quest or an unknown one; 422 for a bad filter; needs the company key", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const foreign = await servedQuest(other)
    await answered(other, { csat: 5, nps: 10 })
    for (const id of [foreign, "00000000-0000-4000-8000-000000000000"]) {
      expect((await call(server, `${BASE}/${id}/responses`, { key: tenant.key })).status).toBe(404)
    }
    const questId = await servedQuest(tenant)
    for (const query of [
      "?band=fan",
      "?from=yesterday",
      "?per_page=101",
      "?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z"
    ]) {
      const res = await call(server, `${BASE}/${questId}/responses${query}`, { key: tenant.key })
      expect({ query, status: res.status }).toEqual({ query, status: 422 })
    }
    expect((await call(server, `${BASE}/${questId}/responses`)).status).toBe(401)
  })
})

describe("fidelis quests responses (CLI)", () => {
  // Each command is a process of its own: slow on a busy machine.
  it(
    "lists a quest's responses with the band and date filters, from the procedure's own options",
    { timeout: 180_000 },
    async () => {
      const tenant = await createTenant(server)
      const questId = await servedQuest(tenant)
      const happy = await answered(tenant, { csat: 5, nps: 10 })
      const unhappy = await answered(tenant, { csat: 1, nps: 2, comment: "Frio" })
      const cli = (...args: string[]) =>
        fidelis(["--url", server.url, "quests", "responses", ...args], { FIDELIS_API_KEY: tenant.key })

      const detractors = json<{ data: Array<Json>; total: number }>(await cli(questId, "--band", "detractor", "--json"))
      expect(detractors.total).toBe(1)
      expect(detractors.data[0]).toMatchObject({ id: unhappy["response_id"], band: "detractor", low_score: true })
      const before = json<{ data: Array<Json> }>(
        await cli("--quest", questId, "--to", unhappy["submitted_at"], "--json")
      )
      expect(before.data.map((r) => r["id"])).toEqual([happy["response_id"]])
      const quiet = await cli(questId, "--quiet")
      expect(quiet.stdout.trimEnd().split("\n")).toEqual([unhappy["response_id"], happy["response_id"]])
      const help = await fidelis(["quests", "responses", "--help"])
      expect(help.stdout).toMatch(/List a quest's responses/)
      expect(help.stdout).toMatch(/--band/)
      const bad = await cli(questId, "--band", "fan")
      expect(bad.code).toBe(2)
    }
  )
})
