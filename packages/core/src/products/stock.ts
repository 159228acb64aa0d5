import type { SqlClient } from "@effect/sql"
import { Conflict } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import { MAX_STOCK } from "./contracts.js"

/**
 * The stock rule of everything an empresa hands over in units: a product's stock, and a reward's of
 * its own. `stock` null is unlimited. A take is a conditional update (never read-then-write), so
 * concurrent takers cannot oversell; a return never outgrows `MAX_STOCK`, since the store may have
 * raised the stock meanwhile. Callers run both inside the transaction of what the units are for.
 */
export const stockOf = (sql: SqlClient.SqlClient, table: "products" | "rewards") => ({
  /** Takes `quantity` units, returning the row (`RETURNING *`, to read from as a CTE); none when short. */
  take: (empresaId: EmpresaId, id: string, quantity: number) => sql`
    UPDATE ${sql(table)} SET stock = stock - ${quantity}, updated_at = now()
    WHERE empresa_id = ${empresaId} AND id = ${id} AND (stock IS NULL OR stock >= ${quantity})
    RETURNING *`,

  /** Puts `quantity` units back; unlimited stays unlimited. */
  giveBack: (empresaId: EmpresaId, id: string, quantity: number) => sql`
    UPDATE ${sql(table)} SET stock = least(stock + ${quantity}, ${MAX_STOCK}), updated_at = now()
    WHERE empresa_id = ${empresaId} AND id = ${id} AND stock IS NOT NULL`
})

/** The refusal of a take that found `left` units of `what` where `quantity` were asked. */
export const outOfStock = (what: string, left: number | null, quantity: number) =>
  new Conflict({ code: "OUT_OF_STOCK", message: `${what} has ${left} left; ${quantity} requested` })
