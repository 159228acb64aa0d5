import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Quests } from "../src/quests/service.js"
import { customQuest, newEmpresa, TestCore } from "./support.js"

const idOf = (survey: Option.Option<{ readonly id: string }>) => Option.getOrThrow(survey).id

layer(TestCore, { timeout: 60_000 })("Quests.activeSurvey", (it) => {
  it.effect("serves the newest active, public, valid custom survey, else the default", () =>
    Effect.gen(function* () {
      const quests = yield* Quests
      const empresa = yield* newEmpresa()

      // A fresh empresa gets its default on first need.
      const first = Option.getOrThrow(yield* quests.activeSurvey(empresa.id))
      expect(first).toMatchObject({ survey_type: "standard_csat_nps", is_default: true })

      const older = yield* quests.create(empresa.id, customQuest("older"))
      expect(idOf(yield* quests.activeSurvey(empresa.id))).toBe(older.id)
      const newer = yield* quests.create(empresa.id, customQuest("newer"))
      expect(idOf(yield* quests.activeSurvey(empresa.id))).toBe(newer.id)

      // Private, paused or expired surveys are never served.
      yield* quests.create(empresa.id, customQuest("private", { is_public: false }))
      yield* quests.create(empresa.id, customQuest("paused", { active: false }))
      yield* quests.create(
        empresa.id,
        customQuest("expired", { valid_until: new Date(Date.now() - 1000).toISOString() })
      )
      expect(idOf(yield* quests.activeSurvey(empresa.id))).toBe(newer.id)

      yield* quests.update(empresa.id, { quest_id: newer.id, active: false })
      yield* quests.update(empresa.id, { quest_id: older.id, valid_until: new Date(Date.now() - 1000).toISOString() })
      expect(idOf(yield* quests.activeSurvey(empresa.id))).toBe(first.id)

      // Every survey switched off: nothing to serve (the public route's 404).
      yield* quests.update(empresa.id, { quest_id: first.id, is_public: false })
      expect(Option.isNone(yield* quests.activeSurvey(empresa.id))).toBe(true)
    })
  )

  it.effect("ensureDefault creates the default exactly once", () =>
    Effect.gen(function* () {
      const quests = yield* Quests
      const empresa = yield* newEmpresa()
      const ids = yield* Effect.all(
        Array.from({ length: 5 }, () => quests.ensureDefault(empresa.id).pipe(Effect.map((q) => q.id))),
        { concurrency: "unbounded" }
      )
      expect(new Set(ids).size).toBe(1)
      expect((yield* quests.list(empresa.id)).length).toBe(1)
    })
  )
})
