import { once } from "node:events"
import { createServer, type AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fidelis, type Outcome } from "../packages/cli/test/bin.js"
import { createTenant, startServer, type TestServer } from "./support/index.js"

const json = <T>(outcome: Outcome): T => {
  expect(outcome.stderr).toBe("")
  expect(outcome.code).toBe(0)
  return JSON.parse(outcome.stdout) as T
}

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.stop()
})

describe("fidelis against a server (--url)", () => {
  it("works with a company key: create, credit once per idempotency key, balance, 404", async () => {
    const tenant = await createTenant(server)
    const remote = (...args: string[]) => fidelis(["--url", server.url, "--api-key", tenant.key, ...args])

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
    const admin = (...args: string[]) => fidelis(["--url", server.url, "--api-key", server.adminKey, ...args])

    const created = json<{ id: string }>(await admin("--empresa", tenant.empresa.id_name, "clients", "create", "--nome", "Davi Lima", "--json"))
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
    const key = json<{ id: string }>(await admin("keys", "create", "--empresa-id", tenant.empresa.id, "--name", "temp", "--json"))
    const refused = await admin("keys", "revoke", key.id)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^error: .*--yes/)
    const keys = json<Array<{ id: string; revoked_at: string | null }>>(await admin("keys", "list", tenant.empresa.id, "--json"))
    expect(keys.find((k) => k.id === key.id)?.revoked_at).toBeNull()
    const revoked = json<{ revoked_at: string | null }>(await admin("keys", "revoke", key.id, "--yes", "--json"))
    expect(revoked.revoked_at).not.toBeNull()

    const wrongKey = await fidelis(["--url", server.url, "--api-key", tenant.key, "empresas", "get", tenant.empresa.id])
    expect(wrongKey.code).toBe(3)
    expect(wrongKey.stderr).toMatch(/^error: .+ \(403\)\n$/)
  })

  it("says the server cannot be reached with exit 7", async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer().listen(0, "127.0.0.1")
    await once(probe, "listening")
    const { port } = probe.address() as AddressInfo
    await new Promise((resolve) => probe.close(resolve))

    const url = `http://127.0.0.1:${port}`
    const unreachable = await fidelis(["--url", url, "--api-key", "fid_x", "clients", "list"])
    expect(unreachable.code).toBe(7)
    expect(unreachable.stderr).toBe(`error: cannot reach ${url}/trpc: connect ECONNREFUSED 127.0.0.1:${port}\n`)
  })
})
