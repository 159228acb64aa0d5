import { SqlClient, type Statement } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { escapeLike } from "../contracts.js"
import { NotFound } from "../errors.js"
import type { EmpresaId, ProductId } from "../ids.js"
import type { CreateProductInput, ListProductsInput, Product, UpdateProductInput } from "./contracts.js"
import { outOfStock, stockOf } from "./stock.js"
import { traced } from "../tracing.js"

/** Other areas' units (a reward's own stock) follow the same rule. */
export { outOfStock, stockOf }

const PRODUCT_COLUMNS =
  "id, name, description, image_url, category, points_cost, price, stock, active, created_at, updated_at"

export class Products extends Effect.Service<Products>()("core/Products", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(PRODUCT_COLUMNS)
    const stock = stockOf(sql, "products")

    /** The catalog clients see (active, not sold out) unless `include_unavailable`; by name. */
    const list = traced("Products.list")(function* (empresaId: EmpresaId, input: ListProductsInput) {
      const term = input.search ? `%${escapeLike(input.search.toLowerCase())}%` : undefined
      const filters: Array<Statement.Fragment> = [
        sql`empresa_id = ${empresaId}`,
        ...(input.include_unavailable ? [] : [sql`active AND (stock IS NULL OR stock > 0)`]),
        ...(input.category ? [sql`lower(category) = ${input.category.toLowerCase()}`] : []),
        ...(term ? [sql`(lower(name) LIKE ${term} OR lower(description) LIKE ${term})`] : [])
      ]
      const rows = yield* sql<Product>`
        SELECT ${columns} FROM products WHERE ${sql.and(filters)} ORDER BY lower(name), id`
      return [...rows]
    })

    const get = traced("Products.get")(function* (empresaId: EmpresaId, productId: ProductId) {
      const [row] = yield* sql<Product>`
        SELECT ${columns} FROM products WHERE empresa_id = ${empresaId} AND id = ${productId}`
      if (row === undefined) return yield* new NotFound({ resource: "Product", id: productId })
      return row
    })

    const create = traced("Products.create")(function* (empresaId: EmpresaId, input: CreateProductInput) {
      const [row] = yield* sql<Product>`
        INSERT INTO products (empresa_id, name, description, image_url, category, points_cost, price, stock, active)
        VALUES (${empresaId}, ${input.name}, ${input.description ?? null}, ${input.image_url ?? null},
                ${input.category ?? null}, ${input.points_cost}, ${input.price ?? null}, ${input.stock ?? null},
                ${input.active})
        RETURNING ${columns}`
      return row!
    })

    /** A partial update: omitted fields keep their value, null clears a nullable one. */
    const update = traced("Products.update")(function* (empresaId: EmpresaId, input: UpdateProductInput) {
      const { product_id, ...fields } = input
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      const [row] = yield* sql<Product>`
        UPDATE products SET
          ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
          updated_at = now()
        WHERE empresa_id = ${empresaId} AND id = ${product_id}
        RETURNING ${columns}`
      if (row === undefined) return yield* new NotFound({ resource: "Product", id: product_id })
      return row
    })

    /**
     * Takes `quantity` units by the stock rule (stock.ts); a refusal is `OUT_OF_STOCK`. Whether the
     * product is active is the caller's rule, checked with the rest of its own.
     */
    const takeStock = traced("Products.takeStock")(function* (
      empresaId: EmpresaId,
      productId: ProductId,
      quantity: number
    ) {
      const [row] = yield* sql<Product>`
        WITH p AS (${stock.take(empresaId, productId, quantity)}) SELECT ${columns} FROM p`
      if (row !== undefined) return row
      const current = yield* get(empresaId, productId)
      return yield* outOfStock(current.name, current.stock, quantity)
    })

    /** Puts units back (a cancelled coupon or redemption), by the stock rule. */
    const returnStock = traced("Products.returnStock")(function* (
      empresaId: EmpresaId,
      productId: ProductId,
      quantity: number
    ) {
      yield* stock.giveBack(empresaId, productId, quantity)
    })

    return sqlErrorsAsDefects({ list, get, create, update, takeStock, returnStock })
  })
}) {}
