import { z } from "zod"
import { Flag, HttpUrl, JsonNumber, QueryFlag, Timestamp } from "../contracts.js"
import { ProductId } from "../ids.js"
import { MAX_POINTS, Money, PointsAmount } from "../amounts.js"

/** The largest stock a store sets, and where units given back stop adding (int4 holds twice it). */
export const MAX_STOCK = 1_000_000_000

/** A stock count; null means unlimited. */
export const Stock = JsonNumber(z.number().int().min(0).max(MAX_STOCK))

export const Product = z
  .object({
    id: ProductId,
    name: z.string(),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    category: z.string().nullable(),
    points_cost: z.number().int().describe("Points a client spends to get one unit"),
    price: z.number().nullable().describe("Reference cash price in BRL; null when not set"),
    stock: z.number().int().nullable().describe("Units left; null means unlimited"),
    active: z.boolean().describe("Inactive products are hidden from clients and cannot be obtained"),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "Product",
    examples: [
      {
        id: "3b0f6a52-4c1e-4a7e-9d55-2f8c1b6e9a01",
        name: "Café expresso",
        description: "Expresso duplo, grãos da casa",
        image_url: "https://cdn.example.com/produtos/expresso.jpg",
        category: "bebidas",
        points_cost: 120,
        price: 8.5,
        stock: 40,
        active: true,
        created_at: "2026-11-22T10:07:04.490Z",
        updated_at: "2026-11-22T10:07:04.490Z"
      }
    ]
  })
export type Product = z.infer<typeof Product>

export const ProductList = z.array(Product)

const fields = {
  name: z.string().trim().min(1).max(200).describe("Display name"),
  description: z.string().trim().max(2000).describe("Shown to clients"),
  image_url: HttpUrl.describe("http(s) URL of the product picture"),
  category: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe("Free-text category, e.g. bebidas; the product list filters on it"),
  points_cost: PointsAmount.describe(`Points a client spends to get one unit, 1 to ${MAX_POINTS}`),
  price: Money.describe("Reference cash price in BRL, cents precision"),
  stock: Stock.describe("Units left; null means unlimited"),
  active: Flag.describe("Inactive products are hidden from clients and cannot be obtained")
}

export const CreateProductInput = z
  .strictObject({
    name: fields.name,
    description: fields.description.nullable().optional(),
    image_url: fields.image_url.nullable().optional(),
    category: fields.category.nullable().optional(),
    points_cost: fields.points_cost,
    price: fields.price.nullable().optional(),
    stock: fields.stock.nullable().optional().describe("Units available; omit or null for unlimited"),
    active: fields.active.default(true)
  })
  .meta({
    examples: [
      {
        name: "Pão de queijo (6 unidades)",
        description: "Assado na hora, com queijo canastra",
        category: "padaria",
        points_cost: 120,
        price: 14.9,
        stock: 50,
        active: true
      }
    ]
  })
export type CreateProductInput = z.infer<typeof CreateProductInput>

/** Omitted fields keep their value; null clears a nullable one (stock: null makes it unlimited). */
export const UpdateProductInput = z
  .strictObject({
    product_id: ProductId.describe("Product id"),
    name: fields.name.optional(),
    description: fields.description.nullable().optional(),
    image_url: fields.image_url.nullable().optional(),
    category: fields.category.nullable().optional(),
    points_cost: fields.points_cost.optional(),
    price: fields.price.nullable().optional(),
    stock: fields.stock.nullable().optional(),
    active: fields.active.optional()
  })
  .meta({
    examples: [
      {
        product_id: "3c9b7f42-6d1e-4a8b-9f2c-5e7d8a1b0c64",
        name: "Pão de queijo (6 unidades)",
        points_cost: 100,
        stock: 40
      }
    ]
  })
export type UpdateProductInput = z.infer<typeof UpdateProductInput>

export const ProductRef = z.strictObject({ product_id: ProductId.describe("Product id") })

export const ListProductsInput = z.strictObject({
  // Described before optional(): the OpenAPI generator unwraps optional query parameters.
  category: z.string().trim().min(1).max(100).describe("Only this category (case-insensitive exact match)").optional(),
  search: z.string().trim().min(1).max(100).describe("Case-insensitive match on name or description").optional(),
  include_unavailable: QueryFlag.default(false).describe(
    "Also list inactive and sold-out (stock 0) products: true or false (default false)"
  )
})
export type ListProductsInput = z.infer<typeof ListProductsInput>
