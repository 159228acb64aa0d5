import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fidelis } from "./bin.js"
import { clientsCsv } from "./csv.js"

const dir = mkdtempSync(join(tmpdir(), "fidelis-import-"))
const env = { FIDELIS_DATA_DIR: join(dir, "data") }
const run = (...args: string[]) => fidelis(args, env, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ROWS = 10_000
// Data rows 17, 5000 and 10000 are bad; their file lines are one more (the header is line 1).
const csv = join(dir, "clients.csv")
writeFileSync(csv, clientsCsv(ROWS, new Set([17, 5000, 10_000])))

const invalidLines = [
  "  row 18: cpf: Invalid CPF: 11 digits with valid check digits",
  "  row 5001: email: Must be an email address such as ana@example.com",
  "  row 10001: email: Must be an email address such as ana@example.com"
]

describe("fidelis clients import (local mode)", () => {
  it("imports 10,000 rows once, lists the bad ones by line, and skips everything on a re-run", async () => {
    expect((await run("empresas", "create", "--name", "Loja Grande", "--id-name", "loja-grande")).code).toBe(0)

    const dry = await run("clients", "import", csv, "--empresa", "loja-grande", "--dry-run")
    expect(dry.stdout.split("\n")[0]).toBe(
      `dry run of ${csv}: 9997 would be created, 0 skipped (already a client), 3 invalid`
    )

    const started = Date.now()
    const first = await run("clients", "import", csv, "--empresa", "loja-grande")
    expect(Date.now() - started).toBeLessThan(90_000)
    expect(first.stdout).toBe(
      `imported ${csv}: 9997 created, 0 skipped (already a client), 3 invalid\n${invalidLines.join("\n")}\n`
    )
    expect(first.stderr).toBe("error: 3 of 10000 rows are invalid and were not imported (listed above)\n")
    expect(first.code).toBe(2)

    const second = await run("clients", "import", csv, "--empresa", "loja-grande", "--json")
    const summary = JSON.parse(second.stdout) as {
      created: number
      skipped: number
      invalid: number
      results: Array<{ row: number; status: string }>
    }
    expect(summary).toMatchObject({ created: 0, skipped: 9997, invalid: 3, dry_run: false })
    expect(summary.results.filter((r) => r.status === "invalid").map((r) => r.row)).toEqual([18, 5001, 10001])

    const page = JSON.parse(
      (await run("clients", "list", "--empresa", "loja-grande", "--per-page", "1", "--json")).stdout
    ) as { total: number }
    expect(page.total).toBe(9997)
  }, 300_000)

  it("refuses a file it cannot use in one line with exit 2", async () => {
    const missing = await run("clients", "import", join(dir, "nope.csv"), "--empresa", "loja-grande")
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: cannot read .*nope\.csv: ENOENT/)

    const wrongHeader = join(dir, "wrong.csv")
    writeFileSync(wrongHeader, "name,mail\nAna,a@b.c\n")
    const header = await run("clients", "import", wrongHeader, "--empresa", "loja-grande")
    expect(header.code).toBe(2)
    expect(header.stderr).toBe(
      `error: ${wrongHeader}: the first line must name the columns, among nome,email,telefone,cpf (nome required); ` +
        `unknown: name, mail\n`
    )
  }, 60_000)
})
