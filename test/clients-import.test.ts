import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fidelis } from "../packages/cli/test/bin.js"
import { clientsCsv, cpfOf } from "../packages/cli/test/csv.js"
import { call, createClient, createTenant, useServer } from "./support/index.js"

const server = useServer()

const importRows = (key: string, body: unknown) => call(server, "/api/v1/public/clients/import", { key, body })
const totalOf = async (key: string) => (await call(server, "/api/v1/public/clients", { key })).body.total as number
const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/)

describe("import_clients (POST /clients/import)", () => {
  it("creates valid rows, reports invalid ones per row, and skips them all on a re-run", async () => {
    const tenant = await createTenant(server)
    const rows = [
      { row: 2, nome: "Ana Souza", email: "Ana@Example.com", telefone: "(11) 91234-5678", cpf: cpfOf(1, 7) },
      { row: 3, nome: "Bruno Lima", email: "", telefone: "", cpf: "" },
      { row: 4, nome: "", email: "nope", cpf: "111.111.111-11" },
      { row: 5, nome: "Ana de novo", email: "ana@example.com" },
      { row: 6, nome: "Carla", cpf: cpfOf(1, 7) }
    ]
    const first = await importRows(tenant.key, { rows })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      created: 2,
      skipped: 2,
      invalid: 1,
      results: [
        { row: 2, status: "created", client_id: uuid },
        { row: 3, status: "created", client_id: uuid },
        {
          row: 4,
          status: "invalid",
          errors: [
            { field: "nome", msg: "Required" },
            { field: "email", msg: expect.any(String) },
            { field: "cpf", msg: "Invalid CPF: 11 digits with valid check digits" }
          ]
        },
        { row: 5, status: "skipped" },
        { row: 6, status: "skipped" }
      ]
    })
    const ana = await call(server, `/api/v1/public/clients/${first.body.results[0].client_id}`, { key: tenant.key })
    expect(ana.body).toMatchObject({
      nome: "Ana Souza",
      email: "ana@example.com",
      telefone: "+5511912345678",
      cpf: cpfOf(1, 7)
    })
    const bruno = await call(server, `/api/v1/public/clients/${first.body.results[1].client_id}`, { key: tenant.key })
    expect(bruno.body).toMatchObject({ nome: "Bruno Lima", email: null, telefone: null, cpf: null })

    const again = await importRows(tenant.key, { rows: rows.filter((r) => r.row !== 3) })
    expect(again.body).toMatchObject({ created: 0, skipped: 3, invalid: 1 })
    expect(again.body.results[0]).toEqual({ row: 2, status: "skipped", client_id: first.body.results[0].client_id })
    expect(await totalOf(tenant.key)).toBe(2)
  })

  it("skips by email or CPF of clients created one by one, only within the caller's empresa", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const existing = await createClient(server, tenant, { email: "joao@example.com" })
    await createClient(server, other, { cpf: cpfOf(2, 7) })
    const res = await importRows(tenant.key, {
      rows: [
        { row: 1, nome: "João", email: "JOAO@example.com" },
        { row: 2, nome: "Outro tenant", cpf: cpfOf(2, 7) }
      ]
    })
    expect(res.body.results).toEqual([
      { row: 1, status: "skipped", client_id: existing.id },
      { row: 2, status: "created", client_id: uuid }
    ])
  })

  it("writes nothing in a dry run", async () => {
    const tenant = await createTenant(server)
    const res = await importRows(tenant.key, {
      dry_run: true,
      rows: [
        { row: 1, nome: "Davi" },
        { row: 2, nome: "Eva", email: "x" }
      ]
    })
    expect(res.body).toEqual({
      created: 1,
      skipped: 0,
      invalid: 1,
      results: [
        { row: 1, status: "created" },
        { row: 2, status: "invalid", errors: [{ field: "email", msg: expect.any(String) }] }
      ]
    })
    expect(await totalOf(tenant.key)).toBe(0)
  })

  it("imports a full batch of 500 and refuses a malformed batch with 422, changing nothing", async () => {
    const tenant = await createTenant(server)
    const rows = Array.from({ length: 500 }, (_, i) => ({ row: i + 1, nome: `Cliente ${i}`, cpf: cpfOf(i, 8) }))
    const full = await importRows(tenant.key, { rows })
    expect(full.body).toMatchObject({ created: 500, skipped: 0, invalid: 0 })

    const tooMany = await importRows(tenant.key, { rows: [...rows, { row: 501, nome: "X" }] })
    expect(tooMany.status).toBe(422)
    expect(JSON.stringify(tooMany.body)).toContain('"rows"')
    const empty = await importRows(tenant.key, { rows: [] })
    expect(empty.status).toBe(422)
    const badShape = await importRows(tenant.key, { rows: [{ row: 0, nome: "Y", extra: 1 }] })
    expect(badShape.status).toBe(422)
    expect(await totalOf(tenant.key)).toBe(500)
  })

  it("is a management tool: not in the company MCP catalog", async () => {
    const tenant = await createTenant(server)
    const res = await call(server, "/mcp", {
      key: tenant.key,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" }
    })
    expect(JSON.stringify(res.body)).toContain("create_client")
    expect(JSON.stringify(res.body)).not.toContain("import_clients")
  })
})

describe("fidelis clients import --url (remote mode, batches within the rate limit)", () => {
  it("imports a 1,200-row file once in 3 calls, lists bad rows, and skips everything on a re-run", async () => {
    const tenant = await createTenant(server)
    const dir = mkdtempSync(join(tmpdir(), "fidelis-import-remote-"))
    try {
      const file = join(dir, "clients.csv")
      writeFileSync(file, clientsCsv(1200, new Set([3, 800]), 5))
      const remote = (...args: string[]) =>
        fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: tenant.key }, 120_000)

      const first = await remote("clients", "import", file)
      expect(first.stdout).toBe(
        `imported ${file}: 1198 created, 0 skipped (already a client), 2 invalid\n` +
          "  row 4: cpf: Invalid CPF: 11 digits with valid check digits\n" +
          "  row 801: email: Must be an email address such as ana@example.com\n"
      )
      expect(first.code).toBe(2)
      const second = await remote("clients", "import", file)
      expect(second.stdout.split("\n")[0]).toBe(
        `imported ${file}: 0 created, 1198 skipped (already a client), 2 invalid`
      )
      expect(await totalOf(tenant.key)).toBe(1198)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
