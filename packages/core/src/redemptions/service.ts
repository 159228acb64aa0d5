import { SqlClient, type Statement } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { userClientAt } from "../accounts/service.js"
import { databaseNow } from "../clock.js"
import { humanCode } from "../codes.js"
import { Config } from "../config.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound, tooLarge } from "../errors.js"
import { qrSvg } from "../qr.js"
import type { CardId, ClientId, EmpresaId, RewardId, UserId } from "../ids.js"
import { MAX_POINTS } from "../amounts.js"
import { Points } from "../points/service.js"
import { Products } from "../products/service.js"
import { Rewards } from "../rewards/service.js"
import { insertEvent, recordEvent } from "../timeline/service.js"
import type { ListRedemptionsInput, RedeemInput, RedeemResult, Redemption, RedemptionId } from "./contracts.js"
import { traced, span } from "../tracing.js"

const CODE_LENGTH = 8
/** A collision at 8 characters (~40 bits) is already rare per empresa; five in a row means a bug. */
const CODE_ATTEMPTS = 5

/** A pending redemption past its deadline reads as expired even before the sweep persists it. */
const statusAt = (now: string) =>
  `CASE WHEN r.status = 'pending' AND r.expires_at <= ${now} THEN 'expired' ELSE r.status END`
const columnsAt = (now: string) => `r.id, r.empresa_id, r.client_id, r.kind, r.reward_id AS reward_uid, r.card_id,
  r.product_name, r.points_spent, r.cashback, r.quantity, r.items, r.notes, ${statusAt(now)} AS status, r.code,
  r.expires_at, r.validated_at, r.cancelled_at, r.created_at`

interface Row extends Omit<Redemption, "qr_code_url"> {
  readonly client_id: ClientId
  readonly card_id: CardId | null
}

/** What a new redemption records; the code, deadline and status are the service's. */
export interface NewRedemption {
  readonly empresaId: EmpresaId
  readonly clientId: ClientId
  readonly kind: Redemption["kind"]
  readonly rewardId?: RewardId
  readonly cardId?: CardId
  readonly productName: string
  readonly quantity: number
  readonly pointsSpent: number
  readonly cashback?: number
  readonly items?: Redemption["items"]
  readonly notes?: string | undefined
}

/** Spec 2.4's reward-event metadata (`reward_uid`, `product_name`) plus the redemption's ids. */
const eventMetadata = (r: Row) => ({
  reward_uid: r.reward_uid,
  product_name: r.product_name,
  redemption_id: r.id,
  code: r.code,
  kind: r.kind,
  quantity: r.quantity
})

/** Why a redemption no longer pending refuses a change of state. */
const refusalOf = (r: Row) => {
  switch (r.status) {
    case "validated":
      return new Conflict({
        code: "REDEMPTION_VALIDATED",
        message: `Redemption ${r.code} was validated at ${r.validated_at}`
      })
    case "expired":
      return new Conflict({ code: "REDEMPTION_EXPIRED", message: `Redemption ${r.code} expired at ${r.expires_at}` })
    case "cancelled":
      return new Conflict({ code: "REDEMPTION_CANCELLED", message: `Redemption ${r.code} was cancelled` })
    case "pending":
      return new Conflict({
        code: "REDEMPTION_NOT_CANCELLABLE",
        message: `Redemption ${r.code} is a stamp card's reward: the card is claimed, so it is validated or expires`
      })
  }
}

/** The code as an SVG QR code; nothing is looked up, so it tells nobody whether the code exists. */
const codeQr = (code: string) => qrSvg(code).pipe(span("Redemptions.qr"))

interface RewardRow {
  readonly id: RewardId
  readonly empresa_id: EmpresaId
  readonly product_name: string
  readonly pontos_necessarios: number
  readonly cashback_value: number | null
  readonly per_user_limit: number | null
  readonly active: boolean
  readonly expired: boolean
}

/**
 * Redemptions: what a user takes away with points (a reward, an order, a stamp card's reward), from
 * `pending` to `validated` at the counter, `cancelled` (points and stock back) or `expired` (points
 * stay spent), spec 3.
 */
export class Redemptions extends Effect.Service<Redemptions>()("core/Redemptions", {
  accessors: true,
  dependencies: [Points.Default, Rewards.Default, Products.Default, Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Config
    const points = yield* Points
    const rewards = yield* Rewards
    const products = yield* Products
    const empresas = yield* Empresas
    const clock = databaseNow(config.clockOffsetSeconds)
    const now = sql.literal(clock)
    const columns = sql.literal(columnsAt(clock))
    const status = sql.literal(statusAt(clock))

    const qrUrl = (code: string) => `${config.publicUrl ?? ""}/api/v1/public/qr/${code}.svg`
    const present = ({ client_id: _client, card_id: _card, ...row }: Row): Redemption => ({
      ...row,
      qr_code_url: qrUrl(row.code)
    })

    /**
     * Persists the expiry of overdue pending redemptions in `scope`, each with its timeline event
     * (0 points: they stay spent), in one statement. Returns how many expired.
     */
    const expireOverdue = (scope: Statement.Fragment) =>
      sql<{ n: number }>`
        WITH expired AS (
          UPDATE redemptions r SET status = 'expired'
          WHERE r.status = 'pending' AND r.expires_at <= ${now} AND ${scope}
          RETURNING r.empresa_id, r.id, r.client_id, r.kind, r.reward_id, r.product_name, r.code, r.quantity
        ), event AS (${insertEvent(
          sql,
          {
            empresaId: sql`expired.empresa_id`,
            clientId: sql`expired.client_id`,
            type: "reward",
            title: sql`'Redemption expired: ' || expired.product_name`,
            description: sql`'Code ' || expired.code || ' was not used in time; its points stay spent'`,
            points: 0,
            metadata: sql`jsonb_build_object('reward_uid', expired.reward_id, 'product_name', expired.product_name,
              'redemption_id', expired.id, 'code', expired.code, 'kind', expired.kind, 'quantity', expired.quantity,
              'status', 'expired')`
          },
          sql`expired`
        )})
        SELECT count(*)::int AS n FROM expired`.pipe(Effect.map(([row]) => row?.n ?? 0))

    /** The user's clients, as a filter on redemptions `r`. */
    const ownedBy = (userId: UserId) =>
      sql`(r.empresa_id, r.client_id) IN (SELECT empresa_id, id FROM user_clients WHERE user_id = ${userId})`

    /** Writes a pending redemption under a fresh code, valid for the store's `redemption_validity_days`. */
    const create = traced("Redemptions.create")(function* (input: NewRedemption) {
      const validityDays = settingsOf(yield* empresas.get(input.empresaId)).redemption_validity_days
      for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
        const [row] = yield* sql<Row>`
          INSERT INTO redemptions AS r (empresa_id, client_id, kind, reward_id, card_id, product_name, quantity,
                                     points_spent, cashback, items, notes, code, expires_at)
          VALUES (${input.empresaId}, ${input.clientId}, ${input.kind}, ${input.rewardId ?? null},
                  ${input.cardId ?? null}, ${input.productName}, ${input.quantity}, ${input.pointsSpent},
                  ${input.cashback ?? 0}, ${jsonb(input.items ?? [])}::jsonb, ${input.notes ?? null},
                  ${humanCode(CODE_LENGTH)}, ${now} + make_interval(days => ${validityDays}))
          ON CONFLICT (empresa_id, code) DO NOTHING
          RETURNING ${columns}`
        if (row !== undefined) return row
      }
      return yield* Effect.dieMessage(`No free redemption code after ${CODE_ATTEMPTS} attempts`)
    })

    /**
     * Spec 4.4's redeem, in one transaction: the reward must exist (404), be active and unexpired;
     * stock is taken and points spent by conditional updates (never read-then-write); the per-user
     * limit is counted once the debit holds the client's row, so one user's parallel redemptions
     * see each other. Lock order: reward, then client (as cancel takes them).
     */
    const redeem = traced("Redemptions.redeem")(function* (userId: UserId, input: RedeemInput) {
      const [reward] = yield* sql<RewardRow>`
        SELECT r.id, r.empresa_id, p.name AS product_name, r.pontos_necessarios, r.cashback_value, r.per_user_limit,
               r.active AND p.active AS active, coalesce(r.expires_at <= ${now}, false) AS expired
        FROM rewards r JOIN products p ON p.empresa_id = r.empresa_id AND p.id = r.product_id
        WHERE r.id = ${input.reward_uid}`
      if (reward === undefined) return yield* new NotFound({ resource: "Reward", id: input.reward_uid })
      const empresaId = reward.empresa_id
      if (!reward.active) {
        return yield* new Conflict({ code: "REWARD_INACTIVE", message: `Reward ${reward.product_name} is not active` })
      }
      if (reward.expired) {
        return yield* new Conflict({ code: "REWARD_EXPIRED", message: `Reward ${reward.product_name} has expired` })
      }
      const cost = reward.pontos_necessarios * input.quantity
      if (cost > MAX_POINTS) {
        return yield* tooLarge(
          ["body", "quantity"],
          `${input.quantity} × ${reward.pontos_necessarios} points is ${cost} points, ` +
            `more than one redemption can spend (${MAX_POINTS})`
        )
      }
      const client = yield* userClientAt(userId, empresaId)
      if (client === undefined) {
        return yield* new Conflict({
          code: "INSUFFICIENT_POINTS",
          message: `You have no points at this store; this needs ${cost}`
        })
      }
      yield* rewards.takeStock(empresaId, reward.id, input.quantity)
      const cashback = (reward.cashback_value ?? 0) * input.quantity
      const row = yield* create({
        empresaId,
        clientId: client.id,
        kind: "reward",
        rewardId: reward.id,
        productName: reward.product_name,
        quantity: input.quantity,
        pointsSpent: cost,
        cashback,
        notes: input.notes
      })
      const spent = yield* points.debit(empresaId, {
        clientId: client.id,
        points: cost,
        source: "reward",
        description: `${input.quantity} × ${reward.product_name}`,
        event: { type: "reward", title: `Reward redeemed: ${reward.product_name}`, metadata: eventMetadata(row) }
      })
      if (reward.per_user_limit !== null) {
        const [used] = yield* sql<{ n: number }>`
          SELECT coalesce(sum(quantity), 0)::int AS n FROM redemptions
          WHERE empresa_id = ${empresaId} AND client_id = ${client.id} AND reward_id = ${reward.id}
            AND status <> 'cancelled'`
        if (used!.n > reward.per_user_limit) {
          return yield* new Conflict({
            code: "REDEMPTION_LIMIT_REACHED",
            message: `Reward ${reward.product_name} allows ${reward.per_user_limit} per user`
          })
        }
      }
      if (cashback > 0) {
        yield* points.cashback(empresaId, {
          loc: ["body", "quantity"],
          clientId: client.id,
          amount: cashback,
          source: "reward",
          description: `Cashback: ${reward.product_name} (${row.code})`
        })
      }
      return {
        success: true,
        redemption: present(row),
        updated_balance: { points_before: spent.balance + cost, points_after: spent.balance, points_spent: cost }
      } satisfies RedeemResult
    }, inTransaction(sql))

    const list = traced("Redemptions.list")(function* (userId: UserId, input: ListRedemptionsInput) {
      yield* expireOverdue(ownedBy(userId))
      const filters = [
        ownedBy(userId),
        ...(input.status === undefined ? [] : [sql`${status} = ${input.status}`]),
        ...(input.empresa_id === undefined ? [] : [sql`r.empresa_id = ${input.empresa_id}`])
      ]
      const rows = yield* sql<Row>`
        SELECT ${columns} FROM redemptions r WHERE ${sql.and(filters)} ORDER BY r.created_at DESC, r.id DESC`
      return { redemptions: rows.map(present) }
    })

    const find = (scope: Statement.Fragment) =>
      sql<Row>`SELECT ${columns} FROM redemptions r WHERE ${scope}`.pipe(Effect.map(([row]) => row))

    /** pending -> validated at the counter; any other state is its refusal (a second validation included). */
    const validate = traced("Redemptions.validate")(function* (empresaId: EmpresaId, code: string) {
      const [row] = yield* sql<Row>`
        UPDATE redemptions r SET status = 'validated', validated_at = ${now}
        WHERE r.empresa_id = ${empresaId} AND r.code = ${code} AND r.status = 'pending' AND r.expires_at > ${now}
        RETURNING ${columns}`
      if (row === undefined) {
        const current = yield* find(sql`r.empresa_id = ${empresaId} AND r.code = ${code}`)
        if (current === undefined) return yield* new NotFound({ resource: "Redemption", id: code })
        return yield* refusalOf(current) as Conflict<
          "REDEMPTION_VALIDATED" | "REDEMPTION_EXPIRED" | "REDEMPTION_CANCELLED"
        >
      }
      yield* recordEvent({
        empresaId,
        clientId: row.client_id,
        type: "reward",
        title: `Redemption validated: ${row.product_name}`,
        description: `Code ${row.code} delivered at the counter`,
        points: 0,
        metadata: { ...eventMetadata(row), status: "validated" }
      })
      return present(row)
    }, inTransaction(sql))

    /**
     * pending -> cancelled: points, cashback and stock come back in the same transaction. A stamp
     * card's reward is not cancellable (its card is already claimed).
     */
    const cancelWhere = (id: RedemptionId, scope: Statement.Fragment) =>
      Effect.gen(function* () {
        const [row] = yield* sql<Row>`
          UPDATE redemptions r SET status = 'cancelled', cancelled_at = ${now}
          WHERE ${scope} AND r.status = 'pending' AND r.expires_at > ${now} AND r.kind <> 'card'
          RETURNING ${columns}`
        if (row === undefined) {
          const current = yield* find(scope)
          if (current === undefined) return yield* new NotFound({ resource: "Redemption", id })
          return yield* refusalOf(current)
        }
        if (row.reward_uid !== null) yield* rewards.returnStock(row.empresa_id, row.reward_uid, row.quantity)
        for (const item of row.items) {
          yield* products.returnStock(row.empresa_id, item.product_uid, item.quantity)
        }
        const event = {
          type: "reward",
          title: `Redemption cancelled: ${row.product_name}`,
          metadata: { ...eventMetadata(row), status: "cancelled" }
        } as const
        if (row.points_spent > 0) {
          yield* points.refund(row.empresa_id, {
            loc: ["path", "redemption_id"],
            clientId: row.client_id,
            points: row.points_spent,
            source: row.kind,
            description: `Refund of ${row.code}`,
            event
          })
        } else {
          yield* recordEvent({ empresaId: row.empresa_id, clientId: row.client_id, points: 0, ...event })
        }
        if (row.cashback > 0) {
          yield* points.cashback(row.empresa_id, {
            loc: ["path", "redemption_id"],
            clientId: row.client_id,
            amount: -row.cashback,
            source: row.kind,
            description: `Cashback taken back: ${row.code}`
          })
        }
        return present(row)
      }).pipe(inTransaction(sql))

    /** The user cancels one of their own; another user's is a 404. */
    const cancelOwn = (userId: UserId, id: RedemptionId) =>
      cancelWhere(id, sql`r.id = ${id} AND ${ownedBy(userId)}`).pipe(span("Redemptions.cancelOwn"))

    /** A store admin cancels one of the empresa's. */
    const cancel = (empresaId: EmpresaId, id: RedemptionId) =>
      cancelWhere(id, sql`r.empresa_id = ${empresaId} AND r.id = ${id}`).pipe(span("Redemptions.cancel"))

    /** Housekeeping: persists every overdue redemption's expiry, in every empresa. */
    const sweep = expireOverdue(sql`true`).pipe(span("Redemptions.sweep"))

    return {
      ...sqlErrorsAsDefects({ create, redeem, list, validate, cancelOwn, cancel, sweep }),
      present,
      qr: codeQr
    }
  })
}) {}
