import { once } from "node:events"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fidelis, json, type Outcome } from "../packages/cli/test/bin.js"
import { freePort } from "./support/cluster.js"
import { createTenant, useServer } from "./support/index.js"

const server = useServer()

describe("fidelis against a server (--url)", () => {
  it("works with a company key: create, credit once per idempotency key, balance, 404", async () => {
    const tenant = await createTenant(server)
    const remote = (...args: string[]) => fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: tenant.key })

    const client = json<{ id: string }>(await remote("clients", "create", "--nome", "Carla Dias", "--json"))
    const credit = ["points", "credit", "--client", client.id, "--points", "30", "--idempotency-key", "cli-1", "--json"]
    const first = json<{ balance: number; credited: number }>(await remote(...credit))
    expect(first).toMatchObject({ balance: 30, credited: 30 })
    const replay = await remote(...credit)
    expect(replay.code).toBe(0)
    expect(JSON.parse(replay.stdout)).toEqual(first)
    expect(replay.stderr).toContain("replayed")

    const balance = json<{ balance: number }>(await remote("points", "balance", client.id, "--json"))
    expect(balance).toEqual({ client_id: client.id, balance: 30, empresa_id: tenant.empresa.id })

    const missing = await remote("clients", "get", "00000000-0000-4000-8000-000000000000")
    expect(missing.code).toBe(4)
    expect(missing.stderr).toBe("error: Client 00000000-0000-4000-8000-000000000000 not found (404)\n")
  })

  it("acts on the empresa --empresa names with the admin key, and refuses without one", async () => {
    const tenant = await createTenant(server)
    const admin = (...args: string[]) => fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: server.adminKey })

    const created = json<{ id: string }>(
      await admin("--empresa", tenant.empresa.id_name, "clients", "create", "--nome", "Davi Lima", "--json")
    )
    const page = json<{ data: Array<{ id: string }>; total: number }>(
      await admin("clients", "list", "--empresa", tenant.empresa.id, "--json")
    )
    expect(page.data.map((c) => c.id)).toEqual([created.id])
    // --quiet: identifiers only, one per line, for shell loops.
    const second = await admin("--empresa", tenant.empresa.id, "clients", "create", "--nome", "Eva Rocha", "--quiet")
    expect(second.stdout).toMatch(/^[0-9a-f-]{36}\n$/)
    const quiet = await admin("--empresa", tenant.empresa.id, "clients", "list", "--quiet")
    expect(quiet.stdout.trimEnd().split("\n").toSorted()).toEqual([created.id, second.stdout.trim()].toSorted())

    const unnamed = await admin("clients", "list")
    expect(unnamed.code).toBe(2)
    expect(unnamed.stderr.trimEnd().split("\n")).toHaveLength(1)

    // Destructive commands need --yes without a terminal, and change nothing when refused.
    const key = json<{ id: string }>(
      await admin("keys", "create", "--empresa-id", tenant.empresa.id, "--name", "temp", "--json")
    )
    const refused = await admin("keys", "revoke", key.id)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^error: .*--yes/)
    const keys = json<Array<{ id: string; revoked_at: string | null }>>(
      await admin("keys", "list", tenant.empresa.id, "--json")
    )
    expect(keys.find((k) => k.id === key.id)?.revoked_at).toBeNull()
    const revoked = json<{ revoked_at: string | null }>(await admin("keys", "revoke", key.id, "--yes", "--json"))
    expect(revoked.revoked_at).not.toBeNull()

    const wrongKey = await fidelis(["--url", server.url, "empresas", "get", tenant.empresa.id], {
      FIDELIS_API_KEY: tenant.key
    })
    expect(wrongKey.code).toBe(3)
    expect(wrongKey.stderr).toMatch(/^error: .+ \(403\)\n$/)
  })

  it("says the server cannot be reached with exit 7", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await freePort()

    const url = `http://127.0.0.1:${port}`
    const unreachable = await fidelis(["--url", url, "clients", "list"], { FIDELIS_API_KEY: "fid_x" })
    expect(unreachable.code).toBe(7)
    expect(unreachable.stderr).toBe(`error: cannot reach ${url}/trpc: connect ECONNREFUSED 127.0.0.1:${port}\n`)
  })
})

describe("fidelis in local mode", () => {
  it("says why the database cannot be opened with exit 7", async () => {
    const port = await freePort()

    const down = await fidelis(["empresas", "get", "x"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` })
    expect(down.code).toBe(7)
    expect(down.stderr).toBe(
      `error: cannot open the database: Failed to acquire connection: connect ECONNREFUSED 127.0.0.1:${port}\n`
    )
  })
})

describe("fidelis with a config file profile", () => {
  const dir = mkdtempSync(join(tmpdir(), "fidelis-cli-profiles-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("takes url and key from the profile; flags, then FIDELIS_* variables, win over it", async () => {
    const tenant = await createTenant(server)
    const other = await createTenant(server)
    const file = join(dir, "config.json")
    writeFileSync(
      file,
      JSON.stringify({
        default_profile: "loja",
        profiles: { loja: { url: server.url, api_key: tenant.key }, outra: { url: server.url, api_key: other.key } }
      })
    )
    const env = { FIDELIS_CONFIG: file }
    /** The empresa a command acts on with these settings: the one its key belongs to. */
    const whoAmI = async (args: string[], extra: Record<string, string> = {}) => {
      const run = async (...command: string[]) => {
        const out = await fidelis([...args, ...command, "--json"], { ...env, ...extra })
        // The flag's warning (test/security/cli-key-flag.test.ts) is all it may add on stderr.
        return json<Record<string, string>>({ ...out, stderr: out.stderr.replace(/^warning: --api-key .*\n/, "") })
      }
      const client = await run("clients", "create", "--nome", "Perfil")
      return (await run("points", "balance", client["id"]!))["empresa_id"]
    }

    expect(await whoAmI([])).toBe(tenant.empresa.id)

    expect(await whoAmI(["--profile", "outra"])).toBe(other.empresa.id)
    expect(await whoAmI([], { FIDELIS_PROFILE: "outra" })).toBe(other.empresa.id)
    expect(await whoAmI([], { FIDELIS_API_KEY: other.key })).toBe(other.empresa.id)
    expect(await whoAmI(["--api-key", tenant.key], { FIDELIS_API_KEY: other.key })).toBe(tenant.empresa.id)

    const badVariable = await fidelis(["clients", "list"], {
      ...env,
      FIDELIS_API_KEY: "fid_not-a-real-key-000000000000000000"
    })
    expect(badVariable.code).toBe(3)
  })

  it("never sends a profile's key to a server the profile does not name", async () => {
    const tenant = await createTenant(server)
    const seen: Array<string | undefined> = []
    const stranger = createHttpServer((req, res) => {
      seen.push(req.headers["x-api-key"] as string | undefined)
      res.writeHead(401, { "content-type": "application/json" })
      res.end(
        JSON.stringify({
          error: {
            message: "no",
            code: -32001,
            data: { code: "UNAUTHORIZED", httpStatus: 401, detail: "Missing API key" }
          }
        })
      )
    }).listen(0, "127.0.0.1")
    await once(stranger, "listening")
    try {
      const file = join(dir, "stranger.json")
      writeFileSync(
        file,
        JSON.stringify({ default_profile: "prod", profiles: { prod: { url: server.url, api_key: tenant.key } } })
      )
      const url = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`
      const refused = await fidelis(["--url", url, "clients", "list"], { FIDELIS_CONFIG: file })
      expect(refused.code).toBe(3)
      expect(refused.stderr).toMatch(
        /^error: Missing API key \(401\); pass --api-key, set FIDELIS_API_KEY or add api_key to a profile/
      )
      // The CLI sends an empty key when it has none (the server's usual 401), never the profile's.
      expect(seen).toEqual([""])
    } finally {
      await new Promise((resolve) => stranger.close(resolve))
    }
  })
})

describe("fidelis exit status 6 when rate limited", () => {
  const limited = useServer({ env: { FIDELIS_RATE_LIMIT_PER_MINUTE: "3" } })

  it("says when to retry, in one line", async () => {
    const tenant = await createTenant(limited)
    // Windows are fixed minutes, so one may roll over mid-test: call until refused, within two windows' worth.
    const codes: Array<number | null> = []
    let last: Outcome | undefined
    for (let i = 0; i < 7 && last?.code !== 6; i++) {
      last = await fidelis(["--url", limited.url, "clients", "list", "--quiet"], { FIDELIS_API_KEY: tenant.key })
      codes.push(last.code)
    }
    expect(codes.at(-1)).toBe(6)
    expect(codes.slice(0, -1).every((code) => code === 0)).toBe(true)
    expect(last?.stderr).toMatch(/^error: Rate limit exceeded; retry in \d+ s \(429\)\n$/)
  })
})
