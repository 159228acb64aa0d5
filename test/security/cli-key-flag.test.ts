import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { demoBanner } from "../../apps/server/src/banner.js"
import { fidelis, ROOT } from "../../packages/cli/test/bin.js"
import { clientsCsv } from "../../packages/cli/test/csv.js"
import { call, createTenant, useServer } from "../support/index.js"

// Review item 7: `--api-key fid_…` is read by any local user in the process list and stays in the
// shell history, yet the README and the first-start banner showed it. They now recommend
// FIDELIS_API_KEY or a profile, and the flag, still accepted, warns once on stderr.

const server = useServer()

const WARNING =
  "warning: --api-key shows the key to every user of this machine (in the process list) and leaves it in " +
  "your shell history; set FIDELIS_API_KEY, or keep it in a profile (fidelis config set api_key), instead\n"

const dir = mkdtempSync(join(tmpdir(), "fidelis-key-flag-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the --api-key flag", () => {
  it("still works, and warns once on stderr, never in --json's stdout", async () => {
    const tenant = await createTenant(server)
    const out = await fidelis(["--url", server.url, "--api-key", tenant.key, "clients", "list", "--json"])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({ data: [], total: 0 })
    expect(out.stderr).toBe(WARNING)
  }, 60_000)

  it("warns once per command, however many calls it makes", async () => {
    const tenant = await createTenant(server)
    const file = join(dir, "clients.csv")
    // Two batches of the import, two calls.
    writeFileSync(file, clientsCsv(501, new Set()))
    const out = await fidelis(["--url", server.url, "--api-key", tenant.key, "clients", "import", file], {}, 120_000)
    expect(out.code).toBe(0)
    expect(out.stderr).toBe(WARNING)
    const listed = await call(server, "/api/v1/public/clients?per_page=1", { key: tenant.key })
    expect(listed.body.total).toBe(501)
  }, 180_000)

  it("says nothing when the key comes from FIDELIS_API_KEY", async () => {
    const tenant = await createTenant(server)
    const out = await fidelis(["--url", server.url, "clients", "list", "--json"], { FIDELIS_API_KEY: tenant.key })
    expect(out.code).toBe(0)
    expect(out.stderr).toBe("")
  }, 60_000)
})

describe("what people are told to type", () => {
  it("the first-start banner keeps the key off the CLI's command line: a profile asks for it", () => {
    const banner = demoBanner({
      url: "http://127.0.0.1:3000",
      empresaName: "Café",
      empresaSlug: "demo",
      key: "fid_demo-key",
      clientId: "00000000-0000-4000-8000-000000000000"
    })
    const cli = banner.split("\n").filter((line) => line.includes("npx fidelis"))
    expect(cli.map((line) => line.trim())).toEqual([
      "npx fidelis config set --profile demo url http://127.0.0.1:3000",
      "npx fidelis config set --profile demo api_key",
      "npx fidelis --profile demo clients list"
    ])
    expect(banner).not.toContain("--api-key fid_")
  })

  it("the README recommends FIDELIS_API_KEY or a profile, and shows no key on a command line", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8")
    expect(readme).not.toMatch(/--api-key ("?\$|fid_)/)
    expect(readme).toMatch(/The key comes from `FIDELIS_API_KEY` or a profile, never from the command line/)
    expect(readme).toContain("npx fidelis config set --profile demo api_key")
  })
})
