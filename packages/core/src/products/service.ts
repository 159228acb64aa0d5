import { SqlClient, type Statement } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { escapeLike } from "../contracts.js"
import { Conflict, NotFound } from "../errors.js"
import type { EmpresaId, ProductId } from "../ids.js"
import {
  MAX_STOCK,
  type CreateProductInput,
  type ListProductsInput,
  type Product,
  type UpdateProductInput
} from "./contracts.js"
import { traced } from "../tracing.js"

const PRODUCT_COLUMNS =
  "id, name, description, image_url, category, points_cost, price, stock, active, created_at, updated_at"

export class Products extends Effect.Service<Products>()("core/Products", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(PRODUCT_COLUMNS)

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
     * Takes `quantity` units with a conditional update (unlimited stock always has enough), never
     * read-then-write, so concurrent takers cannot oversell. Call it inside the transaction of what
     * the units are for; a refusal is `OUT_OF_STOCK`. Whether the product is active is the caller's
     * rule, checked with the rest of its own.
     */
    const takeStock = traced("Products.takeStock")(function* (
      empresaId: EmpresaId,
      productId: ProductId,
      quantity: number
    ) {
      const [row] = yield* sql<Product>`
        UPDATE products SET stock = stock - ${quantity}, updated_at = now()
        WHERE empresa_id = ${empresaId} AND id = ${productId} AND (stock IS NULL OR stock >= ${quantity})
        RETURNING ${columns}`
      if (row !== undefined) return row
      const current = yield* get(empresaId, productId)
      return yield* new Conflict({
        code: "OUT_OF_STOCK",
        message: `${current.name} has ${current.stock} left; ${quantity} requested`
      })
    })

    /**
     * Puts units back (a cancelled coupon or redemption); unlimited stock stays unlimited, and a
     * stock the store raised meanwhile stops at `MAX_STOCK`, so returns never outgrow the column.
     */
    const returnStock = traced("Products.returnStock")(function* (
      empresaId: EmpresaId,
      productId: ProductId,
      quantity: number
    ) {
      yield* sql`UPDATE products SET stock = least(stock + ${quantity}, ${MAX_STOCK}), updated_at = now()
                 WHERE empresa_id = ${empresaId} AND id = ${productId} AND stock IS NOT NULL`
    })

    return sqlErrorsAsDefects({ list, get, create, update, takeStock, returnStock })
  })
}) {}
