import { companyProcedure, refuses, router, runEffect } from "../trpc.js"
import {
  CreateProductInput,
  ListProductsInput,
  Product,
  ProductList,
  ProductRef,
  UpdateProductInput
} from "./contracts.js"
import { Products } from "./service.js"

const tags = ["Products"]

export const productsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/products",
        tags,
        summary: "List products",
        description:
          "The empresa's available products (active, with stock left or unlimited), by name, as a plain array. " +
          "Filter by `category` (exact, case-insensitive) and `search` (name or description). " +
          "`include_unavailable=true` also lists inactive and sold-out products."
      },
      tool: { name: "list_products", readOnly: true }
    })
    .input(ListProductsInput)
    .output(ProductList)
    .query(({ ctx, input }) => runEffect(ctx, Products.list(ctx.empresaId, input))),

  get: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/products/{product_id}",
        tags,
        summary: "Get a product",
        description: "One product of the empresa, available or not."
      },
      tool: { name: "get_product", readOnly: true, adminOnly: true }
    })
    .input(ProductRef)
    .output(Product)
    .query(({ ctx, input }) => runEffect(ctx, Products.get(ctx.empresaId, input.product_id))),

  create: companyProcedure
    .meta({
      successStatus: 201,
      location: "/products/{id}",
      openapi: {
        method: "POST",
        path: "/products",
        tags,
        summary: "Create a product",
        description:
          "Adds a product clients can obtain for points. `points_cost` is a whole number of points (at least 1); " +
          "`price` is an optional reference price in BRL (cents precision); `stock` omitted or null means " +
          "unlimited. Returns the product."
      },
      tool: { name: "create_product" }
    })
    .input(CreateProductInput)
    .output(Product)
    .mutation(({ ctx, input }) => runEffect(ctx, Products.create(ctx.empresaId, input))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "PUT",
        path: "/products/{product_id}",
        tags,
        summary: "Update a product",
        description:
          "Changes the fields sent and keeps the others: send only what changes. `null` clears a nullable field " +
          "(description, image_url, category, price; `stock: null` makes stock unlimited). " +
          "Deactivate with `active: false`. Returns the updated product; another empresa's product is NOT_FOUND."
      },
      tool: { name: "update_product", retrySafe: true }
    })
    .input(UpdateProductInput)
    .output(Product)
    .mutation(({ ctx, input }) => runEffect(ctx, Products.update(ctx.empresaId, input)))
})
