import { createFidelisClient } from "@fidelis/core/client"
import { TRPCClientError } from "@trpc/client"
import { describe, expect, it } from "vitest"
import { createClient, createTenant, useServer } from "./support/index.js"

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

    const credited = await fidelis.points.credit.mutate({ client_id: client.id, points: 12 }, { context: { idempotencyKey: "t-1" } })
    const replayed = await fidelis.points.credit.mutate({ client_id: client.id, points: 12 }, { context: { idempotencyKey: "t-1" } })
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
    const foreign = await codeOf(createFidelisClient({ url: server.url, apiKey: other.key }).clients.get.query({ client_id: client.id }))
    expect(foreign).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 })

    const anonymous = await codeOf(createFidelisClient({ url: server.url, apiKey: "" }).clients.list.query({}))
    expect(anonymous).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 })

    const forbidden = await codeOf(fidelis.empresas.get.query({ empresa_id: tenant.empresa.id }))
    expect(forbidden).toMatchObject({ code: "FORBIDDEN", httpStatus: 403 })
  })
})
