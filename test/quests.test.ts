import { describe, expect, it } from "vitest"
import {
  call,
  createQuest,
  createTenant,
  DEFAULT_SURVEY_FIELDS,
  problem,
  useServer,
  type Tenant
} from "./support/index.js"

const server = useServer()

const QUESTS = "/api/v1/public/quests"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const CUSTOM = {
  name: "Novo cardápio",
  description: "O que achou dos pratos novos?",
  research: {
    fields: [
      { id: "sabor", type: "rating", label: "Sabor", required: true, min: 1, max: 5 },
      { id: "sugestao", type: "text", label: "Alguma sugestão?" }
    ]
  }
}

const list = async (tenant: Tenant) => {
  const res = await call(server, QUESTS, { key: tenant.key })
  expect(res.status).toBe(200)
  return res.body as Array<Record<string, any>>
}
const create = (tenant: Tenant, body: Record<string, unknown>) => call(server, QUESTS, { key: tenant.key, body })
const update = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  call(server, `${QUESTS}/${id}`, { key: tenant.key, method: "PATCH", body })

describe("list_quests and the default survey (spec 4.3 rule 1)", () => {
  it("a new empresa lists exactly its default standard_csat_nps survey, created once", async () => {
    const tenant = await createTenant(server)
    const first = await list(tenant)
    expect(first).toEqual([
      {
        id: expect.stringMatching(UUID),
        name: "Pesquisa de satisfação",
        description: "Sua opinião nos ajuda a melhorar.",
        survey_type: "standard_csat_nps",
        research: { fields: DEFAULT_SURVEY_FIELDS },
        valid_until: null,
        cta_review_on_promoter: false,
        is_public: true,
        active: true,
        is_default: true,
        created_at: expect.stringMatching(ISO),
        updated_at: first[0]!["created_at"]
      }
    ])
    expect(await list(tenant)).toEqual(first)
  })

  it("10 parallel first calls on a fresh tenant create exactly one default", async () => {
    const tenant = await createTenant(server)
    const results = await Promise.all(Array.from({ length: 10 }, () => call(server, QUESTS, { key: tenant.key })))
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200))
    for (const res of results) expect(res.body).toHaveLength(1)
    expect(new Set(results.map((r) => r.body[0].id)).size).toBe(1)
    expect(await list(tenant)).toEqual(results[0]!.body)
  })

  it("each tenant has its own default", async () => {
    const one = await createTenant(server)
    const two = await createTenant(server)
    const [a] = await list(one)
    const [b] = await list(two)
    expect(a!["id"]).not.toBe(b!["id"])
  })
})

describe("create_quest and update_quest", () => {
  it("creates a custom survey (201) with defaults filled in, listed newest first", async () => {
    const tenant = await createTenant(server)
    const res = await create(tenant, CUSTOM)
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Novo cardápio",
      description: "O que achou dos pratos novos?",
      survey_type: "custom",
      research: {
        fields: [
          { id: "sabor", type: "rating", label: "Sabor", required: true, min: 1, max: 5 },
          { id: "sugestao", type: "text", label: "Alguma sugestão?", required: false }
        ]
      },
      valid_until: null,
      cta_review_on_promoter: false,
      is_public: true,
      active: true,
      is_default: false,
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at
    })
    // This first list creates the default, so it is the newest.
    const quests = await list(tenant)
    expect(quests.map((q) => q["is_default"])).toEqual([true, false])
    expect(quests[1]).toEqual(res.body)

    const second = await create(tenant, {
      name: "Atendimento",
      survey_type: "custom",
      research: { fields: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 0, max: 10 }] },
      valid_until: "2030-01-01T00:00:00-03:00",
      cta_review_on_promoter: true,
      is_public: false,
      active: false
    })
    expect(second.status).toBe(201)
    expect(second.body).toMatchObject({
      description: "",
      valid_until: "2030-01-01T03:00:00.000Z",
      cta_review_on_promoter: true,
      is_public: false,
      active: false
    })
    const after = await list(tenant)
    expect(after.map((q) => q["id"])).toEqual([second.body.id, ...quests.map((q) => q["id"])])
  })

  it("updates only the fields sent; research replaces the questions", async () => {
    const tenant = await createTenant(server)
    const created = await createQuest(server, tenant, CUSTOM)
    const research = { fields: [{ id: "geral", type: "rating", label: "Nota geral", required: true, min: 0, max: 10 }] }
    const res = await update(tenant, created.id, {
      name: "Cardápio de verão",
      research,
      valid_until: "2031-06-30T23:59:59.000Z",
      cta_review_on_promoter: true
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...created,
      name: "Cardápio de verão",
      research,
      valid_until: "2031-06-30T23:59:59.000Z",
      cta_review_on_promoter: true,
      updated_at: expect.stringMatching(ISO)
    })
    const cleared = await update(tenant, created.id, { valid_until: null, active: false })
    expect(cleared.body).toMatchObject({ valid_until: null, active: false, name: "Cardápio de verão" })
    const same = await update(tenant, created.id, {})
    expect(same.status).toBe(200)
    expect(same.body).toEqual(cleared.body)
    expect((await list(tenant)).find((q) => q["id"] === created.id)).toEqual(cleared.body)
  })

  it("the default survey may be renamed, unpublished or paused", async () => {
    const tenant = await createTenant(server)
    const [standard] = await list(tenant)
    const res = await update(tenant, standard!["id"], {
      name: "Como foi hoje?",
      description: "Leva 10 segundos",
      is_public: false,
      active: false
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...standard,
      name: "Como foi hoje?",
      description: "Leva 10 segundos",
      is_public: false,
      active: false,
      updated_at: expect.stringMatching(ISO)
    })
  })

  it("answers 404 for another tenant's quest and for an unknown id", async () => {
    const owner = await createTenant(server)
    const custom = await createQuest(server, owner, CUSTOM)
    const [standard] = await list(owner)
    const other = await createTenant(server)
    for (const id of [custom.id, standard!["id"]]) {
      const res = await update(other, id, { name: "Invadida" })
      expect(res.status).toBe(404)
      expect(res.body).toEqual(problem(expect.any(String), "NOT_FOUND"))
    }
    expect((await update(owner, "00000000-0000-4000-8000-000000000000", { name: "X" })).status).toBe(404)
    expect((await list(other)).map((q) => q["is_default"])).toEqual([true])
    expect((await list(owner)).find((q) => q["id"] === custom.id)).toEqual(custom)
  })
})

describe("the default survey is locked (409 DEFAULT_SURVEY_LOCKED)", () => {
  it("refuses changes to its questions, validity and review flag, and changes nothing", async () => {
    const tenant = await createTenant(server)
    const [standard] = await list(tenant)
    for (const body of [
      { research: { fields: [{ id: "csat", type: "rating", label: "CSAT", required: true, min: 1, max: 5 }] } },
      { valid_until: "2030-01-01T00:00:00Z" },
      { cta_review_on_promoter: true },
      { name: "Renomeada", research: { fields: DEFAULT_SURVEY_FIELDS } }
    ]) {
      const res = await update(tenant, standard!["id"], body)
      expect(res.status, JSON.stringify(body)).toBe(409)
      expect(res.body.detail).toEqual({ code: "DEFAULT_SURVEY_LOCKED", message: expect.any(String) })
    }
    expect(await list(tenant)).toEqual([standard])
  })

  it("only custom surveys can be created, and a survey's type never changes", async () => {
    const tenant = await createTenant(server)
    const standard = await create(tenant, { ...CUSTOM, survey_type: "standard_csat_nps" })
    expect(standard.status).toBe(422)
    expect(standard.body.detail).toContainEqual({
      loc: ["body", "survey_type"],
      msg: expect.stringMatching(/custom/),
      type: "enum"
    })
    const [def] = await list(tenant)
    const retype = await update(tenant, def!["id"], { survey_type: "custom" })
    expect(retype.status).toBe(422)
    expect(retype.body.detail).toContainEqual({
      loc: ["body", "survey_type"],
      msg: expect.any(String),
      type: "extra_forbidden"
    })
    expect(await list(tenant)).toEqual([def])
  })
})

describe("invalid input changes nothing and gets the documented 422 shape", () => {
  it("names each bad field with its location", async () => {
    const tenant = await createTenant(server)
    const custom = await createQuest(server, tenant, CUSTOM)
    const before = await list(tenant)
    const rating = { id: "nota", type: "rating", label: "Nota", min: 1, max: 5 }
    const withFields = (...fields: unknown[]) => ({ ...CUSTOM, research: { fields } })
    const FIELDS = ["body", "research", "fields"]
    const cases: Array<[string, Record<string, unknown>, unknown[], string?]> = [
      ["POST", withFields(rating, { ...rating, label: "Outra" }), [...FIELDS, 1, "id"]],
      ["POST", withFields({ ...rating, min: 5, max: 5 }), [...FIELDS, 0, "max"]],
      ["POST", withFields({ ...rating, min: 7, max: 3 }), [...FIELDS, 0, "max"]],
      ["POST", withFields({ ...rating, min: -1 }), [...FIELDS, 0, "min"], "greater_than_equal"],
      ["POST", withFields({ ...rating, max: 11 }), [...FIELDS, 0, "max"], "less_than_equal"],
      ["POST", withFields({ ...rating, min: 1.5 }), [...FIELDS, 0, "min"]],
      ["POST", withFields({ id: "slider", type: "slider", label: "Deslize" }), [...FIELDS, 0, "type"]],
      ["POST", withFields({ id: "obs", type: "text", label: "Obs", min: 1 }), [...FIELDS, 0, "min"], "extra_forbidden"],
      ["POST", withFields({ ...rating, id: "Nota Geral" }), [...FIELDS, 0, "id"]],
      ["POST", withFields({ ...rating, label: "" }), [...FIELDS, 0, "label"]],
      ["POST", withFields({ ...rating, required: "yes" }), [...FIELDS, 0, "required"]],
      ["POST", withFields(), FIELDS, "too_short"],
      ["POST", withFields(...Array.from({ length: 21 }, (_, i) => ({ ...rating, id: `q${i}` }))), FIELDS, "too_long"],
      ["POST", { ...CUSTOM, research: undefined }, ["body", "research"], "missing"],
      ["POST", { ...CUSTOM, valid_until: "31/12/2030" }, ["body", "valid_until"]],
      ["POST", { ...CUSTOM, is_public: "true" }, ["body", "is_public"]],
      ["POST", { ...CUSTOM, name: "" }, ["body", "name"]],
      ["POST", { ...CUSTOM, is_default: true }, ["body", "is_default"], "extra_forbidden"],
      [
        "POST",
        { ...CUSTOM, research: { ...CUSTOM.research, title: "x" } },
        ["body", "research", "title"],
        "extra_forbidden"
      ],
      ["PATCH", { research: { fields: [rating, rating] } }, [...FIELDS, 1, "id"]],
      ["PATCH", { valid_until: "soon" }, ["body", "valid_until"]],
      ["PATCH", { active: 1 }, ["body", "active"]],
      ["PATCH", { colour: "blue" }, ["body", "colour"], "extra_forbidden"]
    ]
    const anyType = expect.any(String)
    for (const [method, body, loc, type] of cases) {
      const res = method === "POST" ? await create(tenant, body) : await update(tenant, custom.id, body)
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(422)
      expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type: type ?? anyType })
    }
    const badId = await update(tenant, "not-a-uuid", { name: "X" })
    expect(badId.status).toBe(422)
    expect(badId.body.detail).toContainEqual({
      loc: ["path", "quest_id"],
      msg: expect.any(String),
      type: "uuid_parsing"
    })
    const badQuery = await call(server, `${QUESTS}?active=true`, { key: tenant.key })
    expect(badQuery.status).toBe(422)
    expect(badQuery.body.detail).toContainEqual({
      loc: ["query", "active"],
      msg: expect.any(String),
      type: "extra_forbidden"
    })

    expect(await list(tenant)).toEqual(before)
  })
})
