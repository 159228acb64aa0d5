import { describe, expect, it } from "vitest"
import { call, createProduct, createTenant, useServer, problem } from "./support/index.js"

const server = useServer()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const create = (body: Record<string, unknown>) => ({ body: { name: "X", points_cost: 10, ...body } })
const put = (body: Record<string, unknown>) => ({ method: "PUT", body })

const names = (body: Array<{ name: string }>) => body.map((p) => p.name)

describe("create_product and products.get", () => {
  it("creates with every field and reads it back", async () => {
    const tenant = await createTenant(server)
    const body = {
      name: "  Café expresso ",
      description: "Expresso duplo",
      image_url: "https://cdn.example.com/expresso.jpg",
      category: "bebidas",
      points_cost: 120,
      price: 8.5,
      stock: 40,
      active: true
    }
    const res = await call(server, "/api/v1/public/products", { key: tenant.key, body })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Café expresso",
      description: "Expresso duplo",
      image_url: "https://cdn.example.com/expresso.jpg",
      category: "bebidas",
      points_cost: 120,
      price: 8.5,
      stock: 40,
      active: true,
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at
    })
    const fetched = await call(server, `/api/v1/public/products/${res.body.id}`, { key: tenant.key })
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(res.body)
  })

  it("defaults the optional fields: no description, unlimited stock, active", async () => {
    const tenant = await createTenant(server)
    const res = await call(server, "/api/v1/public/products", {
      key: tenant.key,
      body: { name: "Pão de queijo", points_cost: 30 }
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      name: "Pão de queijo",
      description: null,
      image_url: null,
      category: null,
      points_cost: 30,
      price: null,
      stock: null,
      active: true
    })
    // Explicit nulls read the same as omitted fields.
    const nulls = await call(server, "/api/v1/public/products", {
      key: tenant.key,
      body: {
        name: "Bolo",
        points_cost: 50,
        description: null,
        image_url: null,
        category: null,
        price: null,
        stock: null
      }
    })
    expect(nulls.status).toBe(201)
    expect(nulls.body).toMatchObject({ description: null, image_url: null, category: null, price: null, stock: null })
  })
})

describe("list_products", () => {
  it("lists available products by name as a bare array, with filters", async () => {
    const tenant = await createTenant(server)
    await createProduct(server, tenant, {
      name: "Suco de laranja",
      category: "Bebidas",
      description: "Natural, 300 ml"
    })
    await createProduct(server, tenant, { name: "café", category: "bebidas", points_cost: 100, stock: 3 })
    await createProduct(server, tenant, { name: "Brownie", category: "doces", description: "Com nozes" })
    await createProduct(server, tenant, { name: "Esgotado", category: "doces", stock: 0 })
    await createProduct(server, tenant, { name: "Inativo", category: "bebidas", active: false })

    const all = await call(server, "/api/v1/public/products", { key: tenant.key })
    expect(all.status).toBe(200)
    expect(Array.isArray(all.body)).toBe(true)
    expect(names(all.body)).toEqual(["Brownie", "café", "Suco de laranja"])
    expect(all.body[1]).toEqual({
      id: expect.stringMatching(UUID),
      name: "café",
      description: null,
      image_url: null,
      category: "bebidas",
      points_cost: 100,
      price: null,
      stock: 3,
      active: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO)
    })

    const everything = await call(server, "/api/v1/public/products?include_unavailable=true", { key: tenant.key })
    expect(names(everything.body)).toEqual(["Brownie", "café", "Esgotado", "Inativo", "Suco de laranja"])
    const explicitFalse = await call(server, "/api/v1/public/products?include_unavailable=false", { key: tenant.key })
    expect(names(explicitFalse.body)).toEqual(names(all.body))

    const drinks = await call(server, "/api/v1/public/products?category=BEBIDAS", { key: tenant.key })
    expect(names(drinks.body)).toEqual(["café", "Suco de laranja"])
    const byDescription = await call(server, "/api/v1/public/products?search=NOZES", { key: tenant.key })
    expect(names(byDescription.body)).toEqual(["Brownie"])
    const byName = await call(server, "/api/v1/public/products?search=caf&include_unavailable=true", {
      key: tenant.key
    })
    expect(names(byName.body)).toEqual(["café"])
    // LIKE wildcards are literal.
    const wildcard = await call(server, "/api/v1/public/products?search=%25", { key: tenant.key })
    expect(wildcard.body).toEqual([])
    const combined = await call(server, "/api/v1/public/products?category=doces&include_unavailable=true", {
      key: tenant.key
    })
    expect(names(combined.body)).toEqual(["Brownie", "Esgotado"])
  })

  it("is an empty array for a new empresa and never shows another empresa's products", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    await createProduct(server, other, { name: "Alheio" })
    const res = await call(server, "/api/v1/public/products?include_unavailable=true", { key: tenant.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([])
  })
})

describe("update_product (PUT, partial)", () => {
  it("changes the fields sent, keeps the others, and clears with null", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, {
      name: "Café",
      description: "Coado",
      image_url: "https://cdn.example.com/cafe.jpg",
      category: "bebidas",
      price: 5,
      stock: 10
    })
    const res = await call(server, `/api/v1/public/products/${product.id}`, {
      key: tenant.key,
      method: "PUT",
      body: { points_cost: 150, price: 5.75 }
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...product,
      points_cost: 150,
      price: 5.75,
      updated_at: expect.stringMatching(ISO)
    })
    expect(res.body.updated_at >= product.updated_at).toBe(true)

    const cleared = await call(server, `/api/v1/public/products/${product.id}`, {
      key: tenant.key,
      method: "PUT",
      body: {
        description: null,
        image_url: null,
        category: null,
        price: null,
        stock: null,
        active: false,
        name: "Café coado"
      }
    })
    expect(cleared.status).toBe(200)
    expect(cleared.body).toMatchObject({
      id: product.id,
      name: "Café coado",
      description: null,
      image_url: null,
      category: null,
      points_cost: 150,
      price: null,
      stock: null,
      active: false
    })
    const fetched = await call(server, `/api/v1/public/products/${product.id}`, { key: tenant.key })
    expect(fetched.body).toEqual(cleared.body)
    // Deactivated: out of the default list.
    const list = await call(server, "/api/v1/public/products", { key: tenant.key })
    expect(list.body).toEqual([])

    // A full body replaces every editable field.
    const full = {
      name: "Café especial",
      description: "Bourbon amarelo",
      image_url: "https://cdn.example.com/especial.jpg",
      category: "cafés",
      points_cost: 300,
      price: 12.9,
      stock: 0,
      active: true
    }
    const replaced = await call(server, `/api/v1/public/products/${product.id}`, {
      key: tenant.key,
      method: "PUT",
      body: full
    })
    expect(replaced.body).toEqual({
      ...full,
      id: product.id,
      created_at: expect.any(String),
      updated_at: expect.any(String)
    })

    const empty = await call(server, `/api/v1/public/products/${product.id}`, {
      key: tenant.key,
      method: "PUT",
      body: {}
    })
    expect(empty.status).toBe(200)
    expect(empty.body).toMatchObject(full)
  })
})

describe("tenant isolation", () => {
  it("answers 404 for another empresa's product and for an unknown id, changing nothing", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const theirs = await createProduct(server, other, { name: "Deles", stock: 5 })
    const unknown = "00000000-0000-4000-8000-000000000000"
    for (const id of [theirs.id, unknown]) {
      const get = await call(server, `/api/v1/public/products/${id}`, { key: tenant.key })
      expect(get.status).toBe(404)
      expect(get.body).toEqual(problem(`Product ${id} not found`, "NOT_FOUND"))
      const updated = await call(server, `/api/v1/public/products/${id}`, {
        key: tenant.key,
        method: "PUT",
        body: { name: "Meu" }
      })
      expect(updated.status).toBe(404)
      expect(updated.body).toEqual(problem(`Product ${id} not found`, "NOT_FOUND"))
    }
    const intact = await call(server, `/api/v1/public/products/${theirs.id}`, { key: other.key })
    expect(intact.body).toMatchObject({ name: "Deles", stock: 5 })
  })
})

describe("invalid input", () => {
  it("is a 422 naming each bad field, and changes nothing", async () => {
    const tenant = await createTenant(server)
    const product = await createProduct(server, tenant, { name: "Original", stock: 5 })
    const productPath = `/api/v1/public/products/${product.id}`
    const cases: Array<[string, Parameters<typeof call>[2], unknown[], unknown]> = [
      ["/api/v1/public/products", { body: { points_cost: 10 } }, ["body", "name"], "missing"],
      ["/api/v1/public/products", create({ name: "   " }), ["body", "name"], "string_too_short"],
      ["/api/v1/public/products", create({ name: "x".repeat(201) }), ["body", "name"], "string_too_long"],
      ["/api/v1/public/products", { body: { name: "X" } }, ["body", "points_cost"], "missing"],
      ["/api/v1/public/products", create({ points_cost: -1 }), ["body", "points_cost"], "greater_than_equal"],
      ["/api/v1/public/products", create({ points_cost: 0 }), ["body", "points_cost"], "greater_than_equal"],
      ["/api/v1/public/products", create({ points_cost: 1.5 }), ["body", "points_cost"], "int_type"],
      ["/api/v1/public/products", create({ points_cost: "ten" }), ["body", "points_cost"], "number_type"],
      ["/api/v1/public/products", create({ price: -0.01 }), ["body", "price"], "greater_than_equal"],
      ["/api/v1/public/products", create({ price: 1.234 }), ["body", "price"], "multiple_of"],
      ["/api/v1/public/products", create({ stock: -1 }), ["body", "stock"], "greater_than_equal"],
      ["/api/v1/public/products", create({ stock: 2.5 }), ["body", "stock"], "int_type"],
      ["/api/v1/public/products", create({ image_url: "not a url" }), ["body", "image_url"], "string_pattern_mismatch"],
      [
        "/api/v1/public/products",
        create({ image_url: "javascript:alert(1)" }),
        ["body", "image_url"],
        "string_pattern_mismatch"
      ],
      ["/api/v1/public/products", create({ category: "" }), ["body", "category"], "string_too_short"],
      [
        "/api/v1/public/products",
        create({ description: "d".repeat(2001) }),
        ["body", "description"],
        "string_too_long"
      ],
      ["/api/v1/public/products", create({ active: "false" }), ["body", "active"], "value_error"],
      ["/api/v1/public/products", create({ sku: "A1" }), ["body", "sku"], "extra_forbidden"],
      [productPath, put({ name: null }), ["body", "name"], "string_type"],
      [productPath, put({ points_cost: null }), ["body", "points_cost"], "number_type"],
      [productPath, put({ points_cost: -5 }), ["body", "points_cost"], "greater_than_equal"],
      [productPath, put({ active: null }), ["body", "active"], "value_error"],
      [productPath, put({ stock: -1 }), ["body", "stock"], "greater_than_equal"],
      [productPath, put({ id: product.id }), ["body", "id"], "extra_forbidden"],
      ["/api/v1/public/products/not-a-uuid", put({ name: "Y" }), ["path", "product_id"], "uuid_parsing"],
      ["/api/v1/public/products/not-a-uuid", {}, ["path", "product_id"], "uuid_parsing"],
      ["/api/v1/public/products?include_unavailable=maybe", {}, ["query", "include_unavailable"], "value_error"],
      ["/api/v1/public/products?category=", {}, ["query", "category"], "string_too_short"],
      ["/api/v1/public/products?color=red", {}, ["query", "color"], "extra_forbidden"]
    ]
    for (const [path, options, loc, type] of cases) {
      const res = await call(server, path, { key: tenant.key, ...options })
      expect(res.status, `${path} ${JSON.stringify(options)}`).toBe(422)
      expect(res.body.detail, `${path} ${JSON.stringify(options)}`).toContainEqual({
        loc,
        msg: expect.any(String),
        type
      })
    }
    const list = await call(server, "/api/v1/public/products?include_unavailable=true", { key: tenant.key })
    expect(list.body).toEqual([{ ...product, stock: 5 }])
  })
})
