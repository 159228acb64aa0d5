import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { describe, test } from "vitest"
import { addressBucket, clientAddress, parseTrustedProxies, type TrustedProxies } from "../src/address.js"
import { configFromEnv } from "../src/config.js"
import { BRAZILIAN_AREA_CODES } from "../src/documents.js"
import { defaultSurvey } from "../src/quests/contracts.js"
import { checkAnswers, isLowScore, isPromoter, scoresOf } from "../src/surveys/answers.js"
import { Surveys } from "../src/surveys/service.js"
import { newClient, newEmpresa, TestCore } from "./support.js"

const proxies = (value: string) => {
  const parsed = parseTrustedProxies(value)
  if (typeof parsed === "string") throw new Error(parsed)
  return parsed
}

describe("client address behind trusted proxies", () => {
  const none: TrustedProxies = proxies("")
  const trusted = proxies("10.0.0.0/8, 192.168.1.1, fd00::/8")

  test("believes X-Forwarded-For only from a trusted peer, read from the right past trusted hops", () => {
    expect(clientAddress("203.0.113.5", "198.51.100.1", none)).toBe("203.0.113.5")
    expect(clientAddress("::ffff:203.0.113.5", undefined, none)).toBe("203.0.113.5")
    expect(clientAddress("203.0.113.5", "198.51.100.1", trusted)).toBe("203.0.113.5")
    expect(clientAddress("10.2.3.4", "198.51.100.1", trusted)).toBe("198.51.100.1")
    expect(clientAddress("10.2.3.4", "6.6.6.6, 198.51.100.1, 192.168.1.1, 10.9.9.9", trusted)).toBe("198.51.100.1")
    expect(clientAddress("fd00::1", "2001:db8::7", trusted)).toBe("2001:db8::7")
    // Nothing forwarded, or only trusted hops: the last address known good.
    expect(clientAddress("10.2.3.4", undefined, trusted)).toBe("10.2.3.4")
    expect(clientAddress("10.2.3.4", "10.1.1.1", trusted)).toBe("10.1.1.1")
    expect(clientAddress("10.2.3.4", "garbage, 10.1.1.1", trusted)).toBe("10.1.1.1")
    expect(clientAddress(undefined, "198.51.100.1", trusted)).toBeUndefined()
  })

  test("buckets IPv4 by address and IPv6 by /64", () => {
    expect(addressBucket("203.0.113.5")).toBe("address:203.0.113.5")
    expect(addressBucket("2001:db8::1")).toBe("address:2001:0db8:0000:0000::/64")
    expect(addressBucket("2001:db8:0:0:ffff::1")).toBe(addressBucket("2001:db8::2"))
    expect(addressBucket("2001:db8:0:1::1")).not.toBe(addressBucket("2001:db8::2"))
    expect(addressBucket("::ffff:1.2.3.4")).toBe("address:0000:0000:0000:0000::/64")
    expect(addressBucket(undefined)).toBe("address:unknown")
  })

  test("FIDELIS_TRUSTED_PROXIES takes addresses and CIDR ranges; anything else stops the start", () => {
    expect(configFromEnv({}).trustedProxies.entries).toEqual([])
    expect(configFromEnv({ FIDELIS_TRUSTED_PROXIES: " 10.0.0.0/8 ,::1" }).trustedProxies.entries).toEqual([
      "10.0.0.0/8",
      "::1"
    ])
    for (const bad of ["10.0.0.0/33", "proxy.internal", "10.0.0.1/8/1", "::1/129", "10.0.0.0/x"]) {
      expect(() => configFromEnv({ FIDELIS_TRUSTED_PROXIES: bad })).toThrow(/FIDELIS_TRUSTED_PROXIES: .* is not an IP/)
    }
  })
})

describe("answers and scores", () => {
  const fields = defaultSurvey.research.fields

  test("keeps only valid answers to the survey's fields, or names every problem", () => {
    expect(checkAnswers(fields, { csat: 5, nps: 10, comment: "" })).toEqual({ answers: { csat: 5, nps: 10 } })
    expect(checkAnswers(fields, { nps: 11, extra: 1 })).toEqual({
      problem:
        "Invalid answers: response.csat: a required answer is missing; " +
        "response.nps: must be a whole number from 0 to 10; response.extra: this survey has no such question"
    })
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`q${i}`, 1]))
    expect(checkAnswers(fields, { csat: 5, nps: 9, ...many })).toEqual({
      problem: expect.stringMatching(/response\.q19: this survey has no such question; and 10 more$/)
    })
  })

  test("reads CSAT and NPS from the first 1-5 and 0-10 ratings, and applies the promoter and low-score rules", () => {
    expect(scoresOf(fields, { csat: 4, nps: 9 })).toEqual({ csat: 4, nps: 9 })
    const custom = [
      { id: "a", type: "rating", label: "A", required: true, min: 0, max: 3 },
      { id: "b", type: "rating", label: "B", required: true, min: 0, max: 10 }
    ] as const
    expect(scoresOf(custom, { a: 3, b: 2 })).toEqual({ csat: null, nps: 2 })
    expect(isPromoter({ csat: null, nps: null })).toBe(false)
    expect(isPromoter({ csat: 5, nps: null })).toBe(true)
    expect(isPromoter({ csat: 5, nps: 8 })).toBe(false)
    expect(isLowScore({ csat: 3, nps: 7 })).toBe(false)
    expect(isLowScore({ csat: 2, nps: null })).toBe(true)
    expect(isLowScore({ csat: null, nps: 6 })).toBe(true)
  })
})

describe("Brazilian area codes", () => {
  test("are ANATEL's 67", () => {
    expect(BRAZILIAN_AREA_CODES.size).toBe(67)
    for (const ddd of ["11", "21", "27", "38", "49", "55", "69", "79", "89", "99"])
      expect(BRAZILIAN_AREA_CODES.has(ddd)).toBe(true)
    for (const ddd of [
      "10",
      "20",
      "23",
      "25",
      "26",
      "29",
      "30",
      "36",
      "39",
      "52",
      "56",
      "57",
      "58",
      "59",
      "72",
      "76",
      "78"
    ])
      expect(BRAZILIAN_AREA_CODES.has(ddd)).toBe(false)
  })
})

layer(TestCore, { timeout: 60_000 })("Surveys.contact", (it) => {
  it.effect("answers a promoter alike whoever the phone is, and emails the referral link to a verified client", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const surveys = yield* Surveys
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Cliente")
      yield* sql`UPDATE clients SET telefone = '+55 (11) 91234-5678' WHERE id = ${client.id}`
      const survey = yield* surveys.active(empresa.id_name)
      const promoterWith = (phone: string) =>
        Effect.gen(function* () {
          const submitted = yield* surveys.respond(
            { estabelecimento_ref: empresa.id, quest_id: survey.quest_id, response: { csat: 5, nps: 10 } },
            undefined
          )
          const saved = yield* surveys.contact({
            estabelecimento_ref: empresa.id_name,
            response_id: submitted.response_id,
            client_phone: phone
          })
          const { response_id, submitted_at: _at, ...rest } = saved
          return { rest, response_id }
        })
      const [member, stranger] = [yield* promoterWith("11912345678"), yield* promoterWith("11987654321")]
      expect(member.rest).toEqual({ ...stranger.rest, client_phone: "11912345678" })
      expect(member.rest.referral_invite).toBe(true)

      const invite = (responseId: string) =>
        surveys.inviteHandler.run({
          id: 0,
          queue: "survey_referral_invite",
          payload: { empresa_id: empresa.id, response_id: responseId },
          attempts: 1,
          max_attempts: 1,
          workerId: "test"
        })
      const invitations = sql<{ to_address: string }>`
        SELECT to_address FROM email_messages WHERE empresa_id = ${empresa.id} AND kind = 'referral_invite'`
      // The client's account email is not verified yet: nothing goes out.
      expect(yield* invite(member.response_id)).toEqual({ outcome: "no client with a verified email" })
      yield* sql`UPDATE users SET email_verified_at = now(), password_hash = 'x' WHERE id = ${client.userId}`
      expect(yield* invite(stranger.response_id)).toEqual({ outcome: "no client with a verified email" })
      expect(yield* invite(member.response_id)).toEqual({ outcome: "invited" })
      // Once in 30 days, however many responses name the phone.
      expect(yield* invite(member.response_id)).toEqual({ outcome: "invited recently" })
      const [user] = yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${client.userId}`
      expect(yield* invitations).toEqual([{ to_address: user!.email }])
    })
  )
})
