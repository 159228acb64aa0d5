import { SqlClient, type Statement } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../errors.js"
import type { EmpresaId, ProductId, RewardId } from "../ids.js"
import { outOfStock, stockOf } from "../products/service.js"
import type { CreateRewardInput, ListRewardsInput, Reward, UpdateRewardInput } from "./contracts.js"
import { traced } from "../tracing.js"

/** A store's rewards as a user sees them, for the end-user API. */
export { RewardsForUser } from "./user-rewards.js"

/** Redeemable now, as far as the reward goes (the client's points and limit are the redeemer's). */
const AVAILABLE =
  "r.active AND p.active AND (r.expires_at IS NULL OR r.expires_at > now()) AND (r.stock IS NULL OR r.stock > 0)"

/** A reward row `r` joined with its product `p`, flattened; `toReward` nests the product. */
const REWARD_COLUMNS = `
  r.id, r.pontos_necessarios, r.cashback_value, r.stock, r.expires_at, r.per_user_limit, r.active,
  ${AVAILABLE} AS available, r.created_at, r.updated_at,
  p.id AS product_id, p.name AS product_name, p.description AS product_description,
  p.image_url AS product_image_url, p.category AS product_category`

interface Row extends Omit<Reward, "product"> {
  readonly product_id: ProductId
  readonly product_name: string
  readonly product_description: string | null
  readonly product_image_url: string | null
  readonly product_category: string | null
}

const toReward = ({
  product_id,
  product_name,
  product_description,
  product_image_url,
  product_category,
  ...reward
}: Row): Reward => ({
  ...reward,
  product: {
    id: product_id,
    name: product_name,
    description: product_description,
    image_url: product_image_url,
    category: product_category
  }
})

export class Rewards extends Effect.Service<Rewards>()("core/Rewards", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(REWARD_COLUMNS)
    const joinProduct = sql.literal("JOIN products p ON p.empresa_id = r.empresa_id AND p.id = r.product_id")
    const stock = stockOf(sql, "rewards")

    /** Rewards clients can redeem now unless `include_unavailable`; newest first. */
    const list = traced("Rewards.list")(function* (empresaId: EmpresaId, input: ListRewardsInput) {
      const filters: Array<Statement.Fragment> = [
        sql`r.empresa_id = ${empresaId}`,
        ...(input.include_unavailable ? [] : [sql.literal(AVAILABLE)]),
        ...(input.product_id ? [sql`r.product_id = ${input.product_id}`] : [])
      ]
      const rows = yield* sql<Row>`
        SELECT ${columns} FROM rewards r ${joinProduct}
        WHERE ${sql.and(filters)}
        ORDER BY r.created_at DESC, r.id DESC`
      return rows.map(toReward)
    })

    const get = traced("Rewards.get")(function* (empresaId: EmpresaId, rewardId: RewardId) {
      const [row] = yield* sql<Row>`
        SELECT ${columns} FROM rewards r ${joinProduct} WHERE r.empresa_id = ${empresaId} AND r.id = ${rewardId}`
      if (row === undefined) return yield* new NotFound({ resource: "Reward", id: rewardId })
      return toReward(row)
    })

    /** The product must be this empresa's (another's is 404); points default to its points_cost. */
    const create = traced("Rewards.create")(function* (empresaId: EmpresaId, input: CreateRewardInput) {
      const [row] = yield* sql<Row>`
        WITH r AS (
          INSERT INTO rewards (empresa_id, product_id, pontos_necessarios, cashback_value, stock, expires_at,
                               per_user_limit, active)
          SELECT p.empresa_id, p.id, COALESCE(${input.pontos_necessarios ?? null}::int, p.points_cost),
                 ${input.cashback_value ?? null}::numeric, ${input.stock ?? null}::int,
                 ${input.expires_at ?? null}::timestamptz, ${input.per_user_limit ?? null}::int,
                 ${input.active}::boolean
          FROM products p
          WHERE p.empresa_id = ${empresaId} AND p.id = ${input.product_id}
          RETURNING *
        )
        SELECT ${columns} FROM r ${joinProduct}`
      if (row === undefined) return yield* new NotFound({ resource: "Product", id: input.product_id })
      return toReward(row)
    })

    /** A partial update: omitted fields keep their value, null clears a nullable one. */
    const update = traced("Rewards.update")(function* (empresaId: EmpresaId, input: UpdateRewardInput) {
      const { reward_id, ...fields } = input
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      const [row] = yield* sql<Row>`
        WITH r AS (
          UPDATE rewards SET
            ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
            updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${reward_id}
          RETURNING *
        )
        SELECT ${columns} FROM r ${joinProduct}`
      if (row === undefined) return yield* new NotFound({ resource: "Reward", id: reward_id })
      return toReward(row)
    })

    /**
     * Takes `quantity` redemptions from the reward's own stock by the products' stock rule; a refusal
     * is `OUT_OF_STOCK`. Activity, expiry and the client's points and limit are the redeemer's checks.
     */
    const takeStock = traced("Rewards.takeStock")(function* (
      empresaId: EmpresaId,
      rewardId: RewardId,
      quantity: number
    ) {
      const [row] = yield* sql<Row>`
        WITH r AS (${stock.take(empresaId, rewardId, quantity)}) SELECT ${columns} FROM r ${joinProduct}`
      if (row !== undefined) return toReward(row)
      const current = yield* get(empresaId, rewardId)
      return yield* outOfStock(`Reward ${current.product.name}`, current.stock, quantity)
    })

    /** Gives back what `takeStock` took (a cancelled redemption), by the same rule. */
    const returnStock = traced("Rewards.returnStock")(function* (
      empresaId: EmpresaId,
      rewardId: RewardId,
      quantity: number
    ) {
      yield* stock.giveBack(empresaId, rewardId, quantity)
    })

    return sqlErrorsAsDefects({ list, get, create, update, takeStock, returnStock })
  })
}) {}
