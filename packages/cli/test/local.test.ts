import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fidelis, json, startFixture, type Outcome } from "./bin.js"

// One persistent embedded database for the file: consecutive invocations share its data.
const dataDir = mkdtempSync(join(tmpdir(), "fidelis-cli-"))
const env = { FIDELIS_DATA_DIR: dataDir }
const run = (...args: string[]) => fidelis(args, env)

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** Failures are exactly one line on stderr, no stack trace. */
const failure = (outcome: Outcome) => {
  expect(outcome.stdout).toBe("")
  const lines = outcome.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^error: /)
  return { code: outcome.code, line: lines[0]! }
}

describe("fidelis in local mode", () => {
  let clientId = ""

  it("names its options after the wire fields and prints its version", async () => {
    const help = await run("points", "credit", "--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--client, --client-id <string>")
    expect(help.stdout).toContain("--points <number>")
    expect(help.stdout).toContain("--idempotency-key")
    expect(help.stdout).toContain("Credit points")

    const get = await run("clients", "get", "--help")
    expect(get.stdout).toContain("fidelis clients get [options] [CLIENT_ID]")

    const version = await run("--version")
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n" })
  })

  it("bootstraps an empresa, a key and a client, and credits once per idempotency key", async () => {
    const empresa = json<{ id: string; id_name: string }>(
      await run("empresas", "create", "--name", "Padaria Sol", "--id-name", "padaria-sol", "--json")
    )
    expect(empresa.id_name).toBe("padaria-sol")

    const key = json<{ key: string; scope: string }>(
      await run("keys", "create", "--empresa-id", empresa.id, "--name", "caixa", "--json")
    )
    expect(key).toMatchObject({ scope: "empresa", key: expect.stringMatching(/^fid_/) })

    const client = json<{ id: string; pontos: number }>(
      await run(
        "clients",
        "create",
        "--empresa",
        "padaria-sol",
        "--nome",
        "Ana Souza",
        "--email",
        "ana@example.com",
        "--json"
      )
    )
    expect(client.pontos).toBe(0)
    clientId = client.id

    const credit = [
      "points",
      "credit",
      "--empresa",
      "padaria-sol",
      "--client",
      clientId,
      "--points",
      "50",
      "--idempotency-key",
      "order-1"
    ]
    const first = await run(...credit)
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^balance\s+50$/m)
    const again = await run(...credit)
    expect(again.code).toBe(0)
    expect(again.stdout).toBe(first.stdout)
    expect(again.stderr).toContain("replayed")

    const balance = json<{ client_id: string; balance: number; empresa_id: string }>(
      await run("points", "balance", "--empresa", empresa.id, "--client-id", clientId, "--json")
    )
    expect(balance).toEqual({ client_id: clientId, balance: 50, empresa_id: empresa.id })
  }, 180_000)

  it("searches clients, as JSON or as a table with a page footer", async () => {
    const page = json<{ data: Array<{ id: string }>; total: number }>(
      await run("clients", "list", "--empresa", "padaria-sol", "--search", "ana", "--json")
    )
    expect(page.total).toBe(1)
    expect(page.data[0]?.id).toBe(clientId)

    const table = await run("clients", "list", "--empresa", "padaria-sol", "--search", "ANA", "--per-page", "5")
    expect(table.code).toBe(0)
    const [header, row, footer] = table.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^id\s+nome\s+email\s/)
    expect(row).toContain("Ana Souza")
    expect(footer).toBe("page 1/1 · 1 total")

    const none = await run("clients", "list", "--empresa", "padaria-sol", "--search", "nobody")
    expect(none.stdout).toBe("(no results)\npage 1/1 · 0 total\n")
  }, 60_000)

  it("says what went wrong in one line, with an exit code per kind", async () => {
    const missing = failure(
      await run("clients", "get", "--empresa", "padaria-sol", "00000000-0000-4000-8000-000000000000")
    )
    expect(missing).toEqual({ code: 4, line: "error: Client 00000000-0000-4000-8000-000000000000 not found (404)" })

    const invalid = failure(
      await run("points", "credit", "--empresa", "padaria-sol", "--client", clientId, "--points", "0")
    )
    expect(invalid.code).toBe(2)
    expect(invalid.line).toMatch(/^error: invalid input: body\.points: .+ \(422\)$/)

    const duplicate = failure(await run("empresas", "create", "--name", "Outra", "--id-name", "padaria-sol"))
    expect(duplicate.code).toBe(5)

    const usage = failure(await run("points", "credit", "--points", "5"))
    expect(usage.code).toBe(2)
    expect(usage.line).toContain("--client-id")
  }, 120_000)

  it("refuses with one line and exit 7 while another process holds the embedded database", async () => {
    const heldDir = mkdtempSync(join(tmpdir(), "fidelis-cli-held-"))
    const holder = startFixture("hold-database.ts", { FIDELIS_DATA_DIR: heldDir })
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve())
        holder.once("exit", (code) => reject(new Error(`the holder exited with ${code}`)))
      })
      const busy = failure(
        await fidelis(["clients", "list", "--empresa", "padaria-sol"], { FIDELIS_DATA_DIR: heldDir })
      )
      expect(busy.code).toBe(7)
      expect(busy.line).toContain("in use by process")
      expect(busy.line).toContain("--url")
    } finally {
      holder.kill("SIGTERM")
      await new Promise((resolve) => (holder.exitCode === null ? holder.once("exit", resolve) : resolve(undefined)))
      rmSync(heldDir, { recursive: true, force: true })
    }
  }, 120_000)
})
