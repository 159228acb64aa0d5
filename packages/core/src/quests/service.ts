import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { Conflict, NotFound } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import { defaultSurvey, type CreateQuestInput, type Quest, type UpdateQuestInput } from "./contracts.js"
import { traced } from "../tracing.js"

const QUEST_COLUMNS = `
  id, name, description, survey_type, research, valid_until, cta_review_on_promoter,
  is_public, active, is_default, created_at, updated_at`

/** What makes the default survey the standard one; changing any of these is refused. */
const LOCKED_ON_DEFAULT = ["research", "valid_until", "cta_review_on_promoter"] as const

export class Quests extends Effect.Service<Quests>()("core/Quests", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(QUEST_COLUMNS)

    const findDefault = (empresaId: EmpresaId) =>
      sql<Quest>`SELECT ${columns} FROM quests WHERE empresa_id = ${empresaId} AND is_default`

    /**
     * The empresa's default survey, created on first need (spec 4.3 rule 1). Concurrent first
     * calls race on the unique partial index: one insert wins, the others do nothing and read it.
     */
    const ensureDefault = traced("Quests.ensureDefault")(function* (empresaId: EmpresaId) {
      const [existing] = yield* findDefault(empresaId)
      if (existing !== undefined) return existing
      yield* sql`
        INSERT INTO quests (empresa_id, name, description, survey_type, research, is_default)
        VALUES (${empresaId}, ${defaultSurvey.name}, ${defaultSurvey.description}, 'standard_csat_nps',
                ${jsonb(defaultSurvey.research)}::jsonb, true)
        ON CONFLICT (empresa_id) WHERE is_default DO NOTHING`
      const [created] = yield* findDefault(empresaId)
      return created!
    })

    /** Newest first; the default survey is always among them. */
    const list = traced("Quests.list")(function* (empresaId: EmpresaId) {
      yield* ensureDefault(empresaId)
      const rows = yield* sql<Quest>`
        SELECT ${columns} FROM quests WHERE empresa_id = ${empresaId} ORDER BY created_at DESC, id DESC`
      return [...rows]
    })

    const create = traced("Quests.create")(function* (empresaId: EmpresaId, input: CreateQuestInput) {
      const [row] = yield* sql<Quest>`
        INSERT INTO quests (empresa_id, name, description, survey_type, research, valid_until,
                            cta_review_on_promoter, is_public, active)
        VALUES (${empresaId}, ${input.name}, ${input.description}, ${input.survey_type},
                ${jsonb(input.research)}::jsonb, ${input.valid_until ?? null},
                ${input.cta_review_on_promoter}, ${input.is_public}, ${input.active})
        RETURNING ${columns}`
      return row!
    })

    const update = traced("Quests.update")(function* (empresaId: EmpresaId, input: UpdateQuestInput) {
      const { quest_id, research, ...fields } = input
      const [current] = yield* sql<{ is_default: boolean }>`
        SELECT is_default FROM quests WHERE empresa_id = ${empresaId} AND id = ${quest_id} FOR UPDATE`
      if (current === undefined) return yield* new NotFound({ resource: "Quest", id: quest_id })
      const locked = LOCKED_ON_DEFAULT.filter((field) => input[field] !== undefined)
      if (current.is_default && locked.length > 0) {
        return yield* new Conflict({
          code: "DEFAULT_SURVEY_LOCKED",
          message:
            `The default survey is the standard CSAT/NPS survey: ${locked.join(", ")} cannot change (its name, ` +
            `description, is_public and active can). Create a custom survey instead.`
        })
      }
      const set: Record<string, unknown> = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      if (research !== undefined) set["research"] = jsonb(research)
      if (Object.keys(set).length === 0) {
        const [row] =
          yield* sql<Quest>`SELECT ${columns} FROM quests WHERE empresa_id = ${empresaId} AND id = ${quest_id}`
        return row!
      }
      const [row] = yield* sql<Quest>`
        UPDATE quests SET ${sql.update(set)}, updated_at = now()
        WHERE empresa_id = ${empresaId} AND id = ${quest_id}
        RETURNING ${columns}`
      return row!
    }, inTransaction(sql))

    /**
     * The survey the empresa's public routes serve: its newest custom survey that is active,
     * public and not past valid_until; otherwise the default survey, if it is active and public.
     * None: the empresa has switched every survey off.
     */
    const activeSurvey = traced("Quests.activeSurvey")(function* (empresaId: EmpresaId) {
      yield* ensureDefault(empresaId)
      const [row] = yield* sql<Quest>`
        SELECT ${columns} FROM quests
        WHERE empresa_id = ${empresaId} AND active AND is_public AND (valid_until IS NULL OR valid_until > now())
        ORDER BY is_default, created_at DESC, id DESC
        LIMIT 1`
      return Option.fromNullable(row)
    })

    return sqlErrorsAsDefects({ ensureDefault, list, create, update, activeSurvey })
  })
}) {}
