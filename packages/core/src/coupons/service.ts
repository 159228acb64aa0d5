import { SqlClient, type Statement } from "@effect/sql"
import { inTransaction, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { humanCode } from "../codes.js"
import { pageOf } from "../contracts.js"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { Conflict, NotFound, tooLarge, ValidationFailed } from "../errors.js"
import type { ClientId, CouponUid, EmpresaId, ProductId } from "../ids.js"
import { Points } from "../points/service.js"
import { Products } from "../products/service.js"
import { recordEvent } from "../timeline/service.js"
import type { Coupon, GenerateCouponInput, ListCouponsInput } from "./contracts.js"
import { traced, span } from "../tracing.js"

/** `coupons.valor` is numeric(12, 2): a value that rounds above 9,999,999,999.99 BRL does not fit. */
const VALOR_LIMIT = 9_999_999_999.995

const UID_LENGTH = 8
/** A collision at 8 characters (~40 bits) is already rare per empresa; five in a row means a bug. */
const UID_ATTEMPTS = 5

/**
 * A coupon past its deadline is reported as expired even before a write persists that, so no
 * reader (an older snapshot included) ever sees a stale `active`.
 */
const STATUS = "CASE WHEN status = 'active' AND expires_at <= now() THEN 'expired' ELSE status END"
const COLUMNS = `id, uid, ${STATUS} AS status, kind, valor, points_spent, client_id, product_id, product_name,
  expires_at, used_at, cancelled_at, created_at`

/** What the client's points buy: a value in money, or one unit of a product. */
interface Offer {
  readonly kind: Coupon["kind"]
  readonly points: number
  readonly productId: ProductId | null
  readonly productName: string | null
  readonly valor: Statement.Fragment
}

/** The coupon as timeline events describe it (spec 2.4 reward metadata plus the coupon's ids). */
const eventMetadata = (coupon: Coupon) => ({
  coupon_uid: coupon.uid,
  coupon_id: coupon.id,
  kind: coupon.kind,
  valor: coupon.valor,
  ...(coupon.product_id === null ? {} : { product_id: coupon.product_id, product_name: coupon.product_name })
})

const descriptionOf = (coupon: Coupon) =>
  coupon.product_name ?? (coupon.valor === null ? undefined : `Worth ${coupon.valor.toFixed(2)} BRL`)

/** How a coupon in each state other than active refuses a change of state. */
const refusals = {
  expired: (coupon: Coupon) =>
    new Conflict({ code: "COUPON_EXPIRED", message: `Coupon ${coupon.uid} expired at ${coupon.expires_at}` }),
  cancelled: (coupon: Coupon) =>
    new Conflict({ code: "COUPON_CANCELLED", message: `Coupon ${coupon.uid} was cancelled` }),
  used: (coupon: Coupon) =>
    new Conflict({ code: "COUPON_USED", message: `Coupon ${coupon.uid} was already used at ${coupon.used_at}` })
}

/**
 * Why a coupon refuses a change of state, from its status as the caller narrowed it (the state
 * the change leads to is an answer, not a refusal), so each caller's error type names only the
 * refusals it can give.
 */
const refusal = <S extends keyof typeof refusals>(coupon: Coupon, status: S | "active") =>
  status === "active"
    ? // Unreachable: the conditional update just found it unusable, and no state leads back to active.
      Effect.dieMessage(`Coupon ${coupon.uid} is active yet refused the change`)
    : Effect.fail(refusals[status as S](coupon) as ReturnType<(typeof refusals)[S]>)

export class Coupons extends Effect.Service<Coupons>()("core/Coupons", {
  accessors: true,
  dependencies: [Points.Default, Empresas.Default, Products.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const points = yield* Points
    const empresas = yield* Empresas
    const products = yield* Products
    const columns = sql.literal(COLUMNS)
    const status = sql.literal(STATUS)

    /** Persists the expiry of overdue coupons matching `scope`, as part of a read. */
    const expireOverdue = (empresaId: EmpresaId, scope: Statement.Fragment) =>
      sql`UPDATE coupons SET status = 'expired'
          WHERE empresa_id = ${empresaId} AND status = 'active' AND expires_at <= now() AND ${scope}`

    const get = traced("Coupons.get")(function* (empresaId: EmpresaId, uid: CouponUid) {
      const [row] = yield* sql<Coupon>`
        WITH expired AS (${expireOverdue(empresaId, sql`uid = ${uid}`)})
        SELECT ${columns} FROM coupons WHERE empresa_id = ${empresaId} AND uid = ${uid}`
      if (row === undefined) return yield* new NotFound({ resource: "Coupon", id: uid })
      return row
    })

    const list = traced("Coupons.list")(function* (empresaId: EmpresaId, input: ListCouponsInput) {
      const filters = [
        sql`empresa_id = ${empresaId}`,
        ...(input.client_id === undefined ? [] : [sql`client_id = ${input.client_id}`]),
        ...(input.status === undefined ? [] : [sql`${status} = ${input.status}`])
      ]
      const scope = input.client_id === undefined ? sql`true` : sql`client_id = ${input.client_id}`
      const rows = yield* sql<Coupon>`
        WITH expired AS (${expireOverdue(empresaId, scope)})
        SELECT ${columns} FROM coupons WHERE ${sql.and(filters)}
        ORDER BY created_at DESC, id DESC
        LIMIT ${input.per_page} OFFSET ${(input.page - 1) * input.per_page}`
      const [count] = yield* sql<{
        total: number
      }>`SELECT count(*)::int AS total FROM coupons WHERE ${sql.and(filters)}`
      return pageOf(rows, count?.total ?? 0, input.page, input.per_page)
    })

    /**
     * One unit of an active product, taken from stock by the products service (never oversold);
     * its row stays locked until the coupon is written, so the price and cost hold steady.
     */
    const takeProduct = traced("Coupons.takeProduct")(function* (empresaId: EmpresaId, productId: ProductId) {
      const product = yield* products.get(empresaId, productId)
      if (!product.active) {
        return yield* new Conflict({ code: "PRODUCT_INACTIVE", message: `Product ${productId} is not active` })
      }
      const taken = yield* products.takeStock(empresaId, productId, 1)
      return {
        kind: "product",
        points: taken.points_cost,
        productId,
        productName: taken.name,
        valor: sql`${taken.price}::numeric`
      } satisfies Offer
    })

    /** Writes the coupon under a fresh code; a taken code (rare) is retried without aborting the transaction. */
    const insert = traced("Coupons.insert")(function* (
      empresaId: EmpresaId,
      clientId: ClientId,
      offer: Offer,
      validityDays: number
    ) {
      for (let attempt = 0; attempt < UID_ATTEMPTS; attempt++) {
        const [row] = yield* sql<Coupon>`
          INSERT INTO coupons (empresa_id, uid, client_id, kind, product_id, product_name, points_spent, valor,
                               expires_at)
          VALUES (${empresaId}, ${humanCode(UID_LENGTH)}, ${clientId}, ${offer.kind}, ${offer.productId},
                  ${offer.productName}, ${offer.points}, ${offer.valor}, now() + make_interval(days => ${validityDays}))
          ON CONFLICT (empresa_id, uid) DO NOTHING
          RETURNING ${columns}`
        if (row !== undefined) return row
      }
      return yield* Effect.dieMessage(`No free coupon code after ${UID_ATTEMPTS} attempts`)
    })

    /**
     * Spends the client's points on a coupon worth money (`points`) or one unit of a product
     * (`product_id`), in one transaction: stock, coupon, debit and timeline event all or nothing.
     */
    const generate = traced("Coupons.generate")(function* (empresaId: EmpresaId, input: GenerateCouponInput) {
      // The client first, so an unknown client is a 404 whatever the product's state.
      yield* points.balance(empresaId, input.client_id)
      const settings = settingsOf(yield* empresas.get(empresaId))
      const pointValue = settings.point_value
      if (input.product_id === undefined && input.points! * pointValue >= VALOR_LIMIT) {
        return yield* tooLarge(
          ["body", "points"],
          `${input.points} points are worth more than a coupon can hold (9999999999.99 BRL) ` +
            `at this empresa's point_value (${pointValue})`
        )
      }
      const offer: Offer =
        input.product_id === undefined
          ? {
              kind: "points",
              points: input.points!,
              productId: null,
              productName: null,
              valor: sql`round(${input.points!}::numeric * ${pointValue}::numeric, 2)`
            }
          : yield* takeProduct(empresaId, input.product_id)
      const coupon = yield* insert(empresaId, input.client_id, offer, settings.coupon_validity_days)
      if (coupon.kind === "points" && coupon.valor === 0) {
        return yield* new ValidationFailed({
          issues: [
            {
              loc: ["body", "points"],
              msg:
                `${coupon.points_spent} points are worth less than 0.01 BRL at this empresa's point_value ` +
                `(${pointValue})`,
              type: "greater_than_equal"
            }
          ]
        })
      }
      yield* points.debit(empresaId, {
        clientId: input.client_id,
        points: coupon.points_spent,
        source: "coupon",
        description: descriptionOf(coupon),
        event: { type: "reward", title: `Coupon ${coupon.uid}`, metadata: eventMetadata(coupon) }
      })
      return coupon
    }, inTransaction(sql))

    /** active -> `to`, stamping `<to>_at`; undefined when the coupon was not active and unexpired. */
    const leaveActive = (empresaId: EmpresaId, uid: CouponUid, to: "used" | "cancelled") =>
      sql<Coupon>`
        UPDATE coupons SET status = ${to}, ${sql(`${to}_at`)} = now()
        WHERE empresa_id = ${empresaId} AND uid = ${uid} AND status = 'active' AND expires_at > now()
        RETURNING ${columns}`.pipe(Effect.map(([coupon]) => coupon))

    /** active -> used, with its timeline event; undefined when the coupon was not usable. */
    const markUsed = traced("Coupons.markUsed")(function* (empresaId: EmpresaId, uid: CouponUid) {
      const used = yield* leaveActive(empresaId, uid, "used")
      if (used === undefined) return undefined
      // No points move, but the client's timeline tells the coupon's whole story.
      yield* recordEvent({
        empresaId,
        clientId: used.client_id,
        type: "reward",
        title: `Coupon ${used.uid} used`,
        description: descriptionOf(used),
        points: 0,
        metadata: eventMetadata(used)
      })
      return used
    }, inTransaction(sql))

    /**
     * active -> cancelled: the points come back and a product's unit returns to stock, in the same
     * transaction; undefined when the coupon was not cancellable.
     */
    const markCancelled = traced("Coupons.markCancelled")(function* (empresaId: EmpresaId, uid: CouponUid) {
      const cancelled = yield* leaveActive(empresaId, uid, "cancelled")
      if (cancelled === undefined) return undefined
      // Product before client: the lock order of generate, so the two never deadlock.
      if (cancelled.product_id !== null) yield* products.returnStock(empresaId, cancelled.product_id, 1)
      yield* points.refund(empresaId, {
        loc: ["path", "uid"],
        clientId: cancelled.client_id,
        points: cancelled.points_spent,
        source: "coupon",
        description: descriptionOf(cancelled),
        event: { type: "reward", title: `Coupon ${cancelled.uid} cancelled`, metadata: eventMetadata(cancelled) }
      })
      return cancelled
    }, inTransaction(sql))

    /**
     * A change of state a retry may repeat: when `mark` finds the coupon no longer active, the
     * coupon already in state `to` is the answer and any other state gives its refusal. The refusal
     * reads the coupon after `mark`'s transaction, so an expiry found on the way is persisted, not
     * rolled back.
     */
    const settle =
      <To extends "used" | "cancelled", E, R>(
        to: To,
        mark: (empresaId: EmpresaId, uid: CouponUid) => Effect.Effect<Coupon | undefined, E, R>
      ) =>
      (empresaId: EmpresaId, uid: CouponUid) =>
        Effect.gen(function* () {
          const moved = yield* mark(empresaId, uid)
          if (moved !== undefined) return moved
          const coupon = yield* get(empresaId, uid)
          if (coupon.status === to) return coupon
          return yield* refusal(coupon, coupon.status as Exclude<Coupon["status"], To>)
        })

    /** use_coupon (`use` is taken by Effect.Service): using a used coupon again returns it as it is. */
    const redeem = (empresaId: EmpresaId, uid: CouponUid) =>
      settle("used", markUsed)(empresaId, uid).pipe(span("Coupons.redeem"))

    /** Cancelling a cancelled coupon returns it as it is. */
    const cancel = (empresaId: EmpresaId, uid: CouponUid) =>
      settle("cancelled", markCancelled)(empresaId, uid).pipe(span("Coupons.cancel"))

    /**
     * Uses a client's own active coupon inside the caller's transaction (a cart's checkout): unlike
     * `redeem`, a coupon already used is a refusal, since it cannot pay twice. Another client's
     * coupon is as unknown as a missing one.
     */
    const useFor = traced("Coupons.useFor")(function* (empresaId: EmpresaId, uid: CouponUid, clientId: ClientId) {
      const coupon = yield* get(empresaId, uid)
      if (coupon.client_id !== clientId) return yield* new NotFound({ resource: "Coupon", id: uid })
      const used = yield* markUsed(empresaId, uid)
      if (used !== undefined) return used
      const now = yield* get(empresaId, uid)
      return yield* refusal(now, now.status)
    })

    /**
     * Housekeeping: persists the expiry of every overdue coupon, in every empresa (reads already
     * report them as expired). Points stay spent, as for an expired redemption (spec 3). Returns
     * how many expired.
     */
    const sweep = sql<{ n: number }>`
      WITH expired AS (
        UPDATE coupons SET status = 'expired' WHERE status = 'active' AND expires_at <= now() RETURNING 1
      )
      SELECT count(*)::int AS n FROM expired`.pipe(
      Effect.map(([row]) => row?.n ?? 0),
      span("Coupons.sweep")
    )

    return sqlErrorsAsDefects({ get, list, generate, redeem, cancel, useFor, sweep })
  })
}) {}
