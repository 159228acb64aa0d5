import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect, Option } from "effect"
import { Config } from "../config.js"
import { NotFound } from "../errors.js"
import type { EmpresaId, UserId } from "../ids.js"
import { qrSvg } from "../qr.js"
import { referralLinkOf, type ReferralQrInput } from "./contracts.js"
import { ReferralCampaigns } from "./service.js"
import { traced } from "../tracing.js"

/**
 * What a user shares to refer a friend to a store: the link, its QR code and the store's bonuses.
 * Links are absolute with FIDELIS_PUBLIC_URL, else relative to the server's address.
 */
export class ReferralCodes extends Effect.Service<ReferralCodes>()("core/ReferralCodes", {
  accessors: true,
  dependencies: [ReferralCampaigns.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const campaigns = yield* ReferralCampaigns
    const base = (yield* Config).publicUrl ?? ""

    const linkOf = (code: string, storeId: EmpresaId | undefined) => referralLinkOf(base, code, storeId)

    const requireStore = (storeId: EmpresaId) =>
      Effect.gen(function* () {
        const [store] = yield* sql`SELECT 1 FROM empresas WHERE id = ${storeId}`
        if (store === undefined) return yield* new NotFound({ resource: "Store", id: storeId })
      })

    const info = traced("ReferralCodes.info")(function* (userId: UserId, storeId: EmpresaId) {
      yield* requireStore(storeId)
      const [user] = yield* sql<{ referral_code: string }>`SELECT referral_code FROM users WHERE id = ${userId}`
      const code = user!.referral_code
      const campaign = yield* campaigns.runningCampaign(storeId)
      return {
        referral_code: code,
        referral_link: linkOf(code, storeId),
        qr_code_url: `${base}/api/v1/public/qr/referrals/${code}.svg?${new URLSearchParams({ store_id: storeId })}`,
        rewards: Option.match(campaign, {
          onNone: () => ({ referrer_bonus: 0, referred_bonus: 0 }),
          onSome: ({ referrer_bonus, referred_bonus }) => ({ referrer_bonus, referred_bonus })
        })
      }
    })

    /** The QR code of a registered user's referral link; an unknown code or store is a 404. */
    const qr = traced("ReferralCodes.qr")(function* (input: ReferralQrInput) {
      const [user] = yield* sql`SELECT 1 FROM users WHERE referral_code = ${input.code} AND password_hash IS NOT NULL`
      if (user === undefined) return yield* new NotFound({ resource: "Referral code", id: input.code })
      if (input.store_id !== undefined) yield* requireStore(input.store_id)
      return yield* qrSvg(linkOf(input.code, input.store_id))
    })

    return sqlErrorsAsDefects({ info, qr })
  })
}) {}
