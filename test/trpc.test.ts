import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { balanceOf, call, createClient, createTenant, useServer } from "./support/index.js"

const server = useServer()

const codeOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(TRPCClientError)
  return (error as TRPCClientError<never>).data as unknown as { code: string; httpStatus: number; detail: unknown }
}

describe("tRPC at /trpc with the typed client", () => {
  it("runs the same procedures with the same auth, errors and idempotency", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const fidelis = createFidelisClient({ url: server.url, apiKey: tenant.key })

    const credited = await fidelis.points.credit.mutate(
      { client_id: client.id, points: 12 },
      { context: { idempotencyKey: "t-1" } }
    )
    const replayed = await fidelis.points.credit.mutate(
      { client_id: client.id, points: 12 },
      { context: { idempotencyKey: "t-1" } }
    )
    expect(replayed).toEqual(credited)
    expect(await fidelis.points.balance.query({ client_id: client.id })).toEqual({
      client_id: client.id,
      balance: 12,
      empresa_id: tenant.empresa.id
    })
    const page = await fidelis.clients.list.query({ search: "maria" })
    expect(page.total).toBe(1)

    const invalid = await codeOf(fidelis.points.credit.mutate({ client_id: client.id, points: 0 }))
    expect(invalid).toMatchObject({ code: "UNPROCESSABLE_CONTENT", httpStatus: 422 })
    expect(invalid.detail).toEqual([{ loc: ["body", "points"], msg: expect.any(String), type: "greater_than_equal" }])
    expect(await fidelis.points.balance.query({ client_id: client.id })).toMatchObject({ balance: 12 })

    const other = await createTenant(server)
    const foreign = await codeOf(
      createFidelisClient({ url: server.url, apiKey: other.key }).clients.get.query({ client_id: client.id })
    )
    expect(foreign).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 })

    const anonymous = await codeOf(createFidelisClient({ url: server.url, apiKey: "" }).clients.list.query({}))
    expect(anonymous).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 })

    const forbidden = await codeOf(fidelis.empresas.get.query({ empresa_id: tenant.empresa.id }))
    expect(forbidden).toMatchObject({ code: "FORBIDDEN", httpStatus: 403 })
  })
})

/** One HTTP request in tRPC's batch format: `n` calls of one mutation, inputs keyed "0".."n-1". */
const batch = async (key: string, path: string, inputs: ReadonlyArray<unknown>) => {
  const res = await fetch(`${server.url}/trpc/${inputs.map(() => path).join(",")}?batch=1`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(Object.fromEntries(inputs.map((input, i) => [String(i), input])))
  })
  return { res, body: (await res.json()) as unknown }
}

type Answer = { result?: unknown; error?: { data: { httpStatus: number; detail: unknown } } }

describe("tRPC batches and the rate limit", () => {
  it("counts every call of a batch: 100 credits with a 60/min budget run 60 and refuse 40 with 429", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    // A fresh key of the same empresa, so the whole budget is the batch's.
    const fresh = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, {
      key: server.adminKey,
      body: { name: "batch" }
    })
    // Fixed one-minute windows: start early in one so the batch is counted in a single window.
    const intoWindow = Date.now() % 60_000
    if (intoWindow > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow))

    const { res, body } = await batch(
      fresh.body.key,
      "points.credit",
      Array.from({ length: 100 }, () => ({ client_id: client.id, points: 1 }))
    )
    const answers = body as ReadonlyArray<Answer>
    expect(answers).toHaveLength(100)
    expect(answers.filter((a) => a.result !== undefined)).toHaveLength(60)
    const refused = answers.filter((a) => a.error !== undefined)
    expect(refused).toHaveLength(40)
    expect(refused.every((a) => a.error!.data.httpStatus === 429)).toBe(true)
    expect(refused[0]!.error!.data.detail).toMatch(/Rate limit exceeded/)
    // The headers end on the final count.
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    expect(await balanceOf(server, tenant, client.id)).toBe(60)
  }, 120_000)

  it("refuses a batch of more than 100 calls as a whole, before running any", async () => {
    const tenant = await createTenant(server)
    const client = await createClient(server, tenant)
    const { res, body } = await batch(
      tenant.key,
      "points.credit",
      Array.from({ length: 101 }, () => ({ client_id: client.id, points: 1 }))
    )
    expect(res.status).toBe(400)
    expect(body).toMatchObject({
      error: {
        data: { code: "BAD_REQUEST", httpStatus: 400, detail: expect.stringMatching(/Batch call exceeds maximum size/) }
      }
    })
    expect(await balanceOf(server, tenant, client.id)).toBe(0)
  })
})
