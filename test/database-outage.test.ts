import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, postgresBinaries, startPrivateCluster, type PrivateCluster } from "./support/cluster.js"
import {
  call,
  createClient,
  createTenant,
  startServer,
  type ApiResponse,
  type Tenant,
  type TestServer
} from "./support/index.js"

// These tests stop and restart the database under running servers, so they bring their own
// PostgreSQL server instead of TEST_DATABASE_URL's, and run the same on both CI passes.
const bin = await postgresBinaries()

/** Calls `attempt` until `done` holds, for at most `ms`; the last answer is returned either way. */
const poll = async <T>(attempt: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await attempt().catch((error: unknown) => error as T)
    if (done(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 50))
  }
}

const ready = (server: TestServer) =>
  poll(
    () => call(server, "/readyz"),
    (res) => res.status === 200
  )

/** Server processes LISTENing on the cluster: their listener connections, idle after LISTEN. */
const listenersOn = (url: string) => async () => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'fidelis-listener' AND state = 'idle'"
    )
    return rows[0]!.n
  } finally {
    await client.end()
  }
}

const keyIdOf = async (server: TestServer, empresaId: string): Promise<string> =>
  (await call(server, `/api/v1/internal/empresas/${empresaId}/api-keys`, { key: server.adminKey })).body[0].id

describe("a database out of reach when the server starts", () => {
  it("logs why in the driver's words and exits 1", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await freePort()

    const start = startServer({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/test` })
    await expect(start).rejects.toThrow(
      new RegExp(
        `exited with 1 before listening:[\\s\\S]*"could not open the database","error":` +
          `"Failed to acquire connection: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}"`
      )
    )
  })
})

describe.skipIf(bin === undefined)(
  "a database that restarts or goes away (needs PostgreSQL server binaries in /usr/lib/postgresql)",
  () => {
    let cluster: PrivateCluster
    let a: TestServer
    let b: TestServer

    beforeAll(async () => {
      cluster = await startPrivateCluster(bin!)
      ;[a, b] = await Promise.all([
        startServer({ databaseUrl: cluster.url }),
        startServer({ databaseUrl: cluster.url })
      ])
    })
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await cluster?.destroy()
    })

    /** Uses the key on b until b holds it in its cache, revokes it through a, and asks b at once. */
    const revokeAndAskB = async (tenant: Tenant): Promise<number> => {
      expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
      expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
      const revoked = await call(a, `/api/v1/internal/api-keys/${await keyIdOf(a, tenant.empresa.id)}`, {
        method: "DELETE",
        key: a.adminKey
      })
      expect(revoked.status).toBe(200)
      return (await call(b, "/api/v1/public/clients", { key: tenant.key })).status
    }

    it("a key revoked through one process is refused by the other after every restart", async () => {
      const listeners = listenersOn(cluster.url)
      for (let restart = 1; restart <= 2; restart++) {
        const tenant = await createTenant(a)
        expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
        await cluster.restart()
        expect((await ready(a)).status).toBe(200)
        expect((await ready(b)).status).toBe(200)
        // Both processes LISTEN again, so b caches the key again once it is used.
        expect(await poll(listeners, (n) => n === 2)).toBe(2)
        expect(await revokeAndAskB(tenant), `after restart ${restart}`).toBe(401)
      }
    })

    it("once a revocation or a plan change has returned, the other process refuses at once, every time", async () => {
      // Without the confirmation, b still served a revoked key on the next request about one time in three.
      for (let round = 0; round < 20; round++)
        expect(await revokeAndAskB(await createTenant(a)), `round ${round}`).toBe(401)
      const tenant = await createTenant(a)
      expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
      await call(a, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
        method: "PATCH",
        key: a.adminKey,
        body: { api_access: false }
      })
      expect((await call(b, "/api/v1/public/clients", { key: tenant.key })).status).toBe(403)
    })

    it("answers 503 with Retry-After on every surface while the database is down, and recovers by itself", async () => {
      const tenant = await createTenant(a)
      const client = await createClient(a, tenant)
      const surfaces: Record<string, () => Promise<ApiResponse>> = {
        rest: () => call(a, `/api/v1/public/points/${client.id}`, { key: tenant.key }),
        internal: () => call(a, `/api/v1/internal/empresas/${tenant.empresa.id}`, { key: a.adminKey }),
        trpc: () =>
          call(a, `/trpc/points.balance?input=${encodeURIComponent(JSON.stringify({ client_id: client.id }))}`, {
            key: tenant.key
          }),
        mcp: () =>
          call(a, "/mcp", {
            key: tenant.key,
            headers: { accept: "application/json, text/event-stream" },
            body: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "get_points_balance", arguments: { client_id: client.id } }
            }
          })
      }
      const unavailable = {
        code: "SERVICE_UNAVAILABLE",
        message: "The service is temporarily unavailable; retry in a few seconds"
      }

      await cluster.stop()
      try {
        for (const [surface, attempt] of Object.entries(surfaces)) {
          const res = await attempt()
          expect(res.status, surface).toBe(503)
          expect(Number(res.headers.get("retry-after")), surface).toBeGreaterThanOrEqual(1)
          // tRPC carries the problem in its error shape, with its own code beside it; MCP in its JSON-RPC error's data.
          const { code, detail } =
            surface === "trpc"
              ? res.body.error.data
              : surface === "mcp"
                ? { code: res.body.error.data.detail.code, detail: res.body.error.data.detail }
                : { code: res.body.detail.code, detail: res.body.detail }
          expect({ code, detail }, surface).toEqual({ code: "SERVICE_UNAVAILABLE", detail: unavailable })
          expect(JSON.stringify(res.body), surface).not.toMatch(/ECONN|Error:|at .*\.(ts|js)|postgres/i)
        }
      } finally {
        await cluster.start()
      }

      for (const [surface, attempt] of Object.entries(surfaces)) {
        const res = await poll(attempt, (r) => r.status === 200)
        expect(res.status, surface).toBe(200)
      }
      expect((await call(a, "/api/v1/public/clients", { key: tenant.key })).body.total).toBe(1)
    })
  }
)
