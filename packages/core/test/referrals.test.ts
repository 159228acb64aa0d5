import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ReferralCampaigns } from "../src/referrals/service.js"
import { newEmpresa, TestCore } from "./support.js"

const DAY = 86_400_000
/** One base for the file, so equal offsets are equal instants. */
const BASE = Date.now()
const at = (days: number) => new Date(BASE + days * DAY)

layer(TestCore, { timeout: 60_000 })("ReferralCampaigns.runningCampaign", (it) => {
  it.effect("is the active campaign whose half-open window holds the instant, if any", () =>
    Effect.gen(function* () {
      const campaigns = yield* ReferralCampaigns
      const empresa = yield* newEmpresa()
      expect(Option.isNone(yield* campaigns.runningCampaign(empresa.id))).toBe(true)

      const campaign = (name: string, from: number, to: number | null, active = true) =>
        campaigns.create(empresa.id, {
          name,
          referrer_bonus: 10,
          referred_bonus: 5,
          starts_at: at(from).toISOString(),
          ends_at: to === null ? null : at(to).toISOString(),
          active
        })
      const ended = yield* campaign("ended", -20, -10)
      const current = yield* campaign("current", -10, 10)
      const next = yield* campaign("next", 10, null)
      yield* campaign("off", -30, null, false)

      const running = yield* campaigns.runningCampaign(empresa.id)
      expect(Option.getOrThrow(running)).toEqual(current)
      expect(Option.getOrThrow(yield* campaigns.runningCampaign(empresa.id, at(-15))).id).toBe(ended.id)
      // ends_at is exclusive: at the boundary the next campaign runs.
      expect(Option.getOrThrow(yield* campaigns.runningCampaign(empresa.id, at(10))).id).toBe(next.id)
      expect(Option.getOrThrow(yield* campaigns.runningCampaign(empresa.id, at(1000))).id).toBe(next.id)
      // Only the inactive campaign covers this instant.
      expect(Option.isNone(yield* campaigns.runningCampaign(empresa.id, at(-25)))).toBe(true)

      const other = yield* newEmpresa()
      expect(Option.isNone(yield* campaigns.runningCampaign(other.id))).toBe(true)
    })
  )
})
