import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { userClientAt } from "../accounts/service.js"
import { databaseNow } from "../clock.js"
import { Config } from "../config.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import type { EmpresaId, RewardId, UserId } from "../ids.js"
import type { UserReward, UserRewards } from "./contracts.js"
import { traced } from "../tracing.js"

interface Row {
  readonly uid: RewardId
  readonly pontos_necessarios: number
  readonly cashback_value: number | null
  readonly stock_available: number | null
  readonly expires_at: string | null
  readonly per_user_limit: number | null
  /** Units the user's client took of this reward, cancelled redemptions aside. */
  readonly redeemed: number
  readonly product_uid: string
  readonly product_name: string
  readonly product_description: string | null
  readonly product_image_url: string | null
  readonly product_category: string | null
}

/** A store's rewards as a user sees them (spec 2.4): what is redeemable now, and what this user can redeem. */
export class RewardsForUser extends Effect.Service<RewardsForUser>()("core/RewardsForUser", {
  accessors: true,
  dependencies: [Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const empresas = yield* Empresas
    const now = sql.literal(databaseNow(config.clockOffsetSeconds))

    /** Spec 2.4's rewards of one store with `can_redeem` and `user_points` for this user. */
    const atStore = traced("RewardsForUser.atStore")(function* (userId: UserId, empresaId: EmpresaId) {
      const empresa = yield* empresas.get(empresaId)
      const client = yield* userClientAt(userId, empresaId)
      const userPoints = client?.balance ?? 0
      const rows = yield* sql<Row>`
        SELECT r.id AS uid, r.pontos_necessarios, r.cashback_value, r.stock AS stock_available, r.expires_at,
               r.per_user_limit, p.id AS product_uid, p.name AS product_name, p.description AS product_description,
               p.image_url AS product_image_url, p.category AS product_category,
               (SELECT coalesce(sum(x.quantity), 0)::int FROM redemptions x
                WHERE x.empresa_id = r.empresa_id AND x.reward_id = r.id AND x.client_id = ${client?.id ?? null}
                  AND x.status <> 'cancelled') AS redeemed
        FROM rewards r JOIN products p ON p.empresa_id = r.empresa_id AND p.id = r.product_id
        WHERE r.empresa_id = ${empresaId} AND r.active AND p.active
          AND (r.expires_at IS NULL OR r.expires_at > ${now}) AND (r.stock IS NULL OR r.stock > 0)
        ORDER BY r.pontos_necessarios, r.created_at DESC, r.id`
      const logo = settingsOf(empresa).logo_url
      return {
        rewards: rows.map((r): UserReward => ({
          uid: r.uid,
          product: {
            uid: r.product_uid,
            name: r.product_name,
            description: r.product_description,
            image_url: r.product_image_url,
            category: r.product_category
          },
          empresa: { id: empresaId, name: empresa.name, logo_url: logo },
          pontos_necessarios: r.pontos_necessarios,
          cashback_value: r.cashback_value,
          stock_available: r.stock_available,
          expires_at: r.expires_at,
          can_redeem:
            userPoints >= r.pontos_necessarios && (r.per_user_limit === null || r.redeemed < r.per_user_limit),
          user_points: userPoints
        })),
        user_summary: { total_points: userPoints, empresa_id: empresaId }
      } satisfies UserRewards
    })

    return sqlErrorsAsDefects({ atStore })
  })
}) {}
