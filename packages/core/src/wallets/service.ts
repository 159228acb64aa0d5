import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../errors.js"
import type { EmpresaId, UserId } from "../ids.js"
import type { StoreWallet, Wallet } from "./contracts.js"
import { traced } from "../tracing.js"

/**
 * The user's balances, summed from the ledger of each client record the user may see
 * (`user_clients`: only once the email is verified). A refund gives a spend back, so it lowers
 * `total_spent`; expiries and adjustments change the balance only. Pending points (offline NFC-e
 * receipts awaiting confirmation) are not in the ledger: they are summed from the receipts.
 */
const WALLET_COLUMNS = `
  c.id, e.id AS empresa_id, e.name AS empresa_name, e.settings->>'logo_url' AS empresa_logo,
  coalesce(sum(l.points), 0)::bigint AS saldo_pontos,
  coalesce(sum(l.cashback), 0)::float8 AS saldo_cashback,
  coalesce(sum(l.points) FILTER (WHERE l.kind = 'credit'), 0)::bigint AS total_earned,
  coalesce(-sum(l.points) FILTER (WHERE l.kind IN ('spend', 'refund')), 0)::bigint AS total_spent,
  (SELECT coalesce(sum(i.pending_points), 0)::float8 FROM nfce_invoices i
   WHERE i.empresa_id = e.id AND i.client_id = c.id AND i.status = 'pending') AS pending_points`

type Row = Wallet & Pick<StoreWallet, "total_earned" | "total_spent">

export class Wallets extends Effect.Service<Wallets>()("core/Wallets", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(WALLET_COLUMNS)

    const rows = (userId: UserId, empresaId?: EmpresaId) => sql<Row>`
      SELECT ${columns}
      FROM user_clients c
      JOIN empresas e ON e.id = c.empresa_id
      LEFT JOIN points_ledger l ON l.empresa_id = c.empresa_id AND l.client_id = c.id
      WHERE c.user_id = ${userId} ${empresaId === undefined ? sql`` : sql`AND c.empresa_id = ${empresaId}`}
      GROUP BY c.id, e.id
      ORDER BY lower(e.name), e.id`

    /** One wallet per store where the user is a client. */
    const list = traced("Wallets.list")(function* (userId: UserId) {
      const wallets = yield* rows(userId)
      return { wallets: wallets.map(({ total_earned: _e, total_spent: _s, ...wallet }) => wallet) }
    })

    /** 404 when the user has no client record there, or one the user may not see yet. */
    const atStore = traced("Wallets.atStore")(function* (userId: UserId, storeId: EmpresaId) {
      const [row] = yield* rows(userId, storeId)
      if (row === undefined) return yield* new NotFound({ resource: "Wallet", id: storeId })
      const { empresa_id, empresa_name, saldo_pontos, saldo_cashback, pending_points, total_earned, total_spent } = row
      return {
        store_id: empresa_id,
        store_name: empresa_name,
        saldo_pontos,
        saldo_cashback,
        pending_points,
        total_earned,
        total_spent
      }
    })

    return sqlErrorsAsDefects({ list, atStore })
  })
}) {}
