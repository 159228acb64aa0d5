import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { call, createTenant, startServer, useServer, type TestServer, problem } from "./support/index.js"

const server = useServer()

const MiB = 1024 * 1024
const LIMIT_DETAIL = "Request body exceeds the limit of 1048576 bytes"

/** A JSON array of `bytes` bytes, the shape of the probe in issue 10. */
const bigArray = (bytes: number) =>
  `[${Array.from({ length: Math.floor(bytes / 12) }, () => '{"nome":1},').join("")}{}]`

interface SlowPost {
  /** Status and body of the response, and how much of the body had been sent when it arrived. */
  readonly answered: Promise<{ status: number; body: string; sentBeforeAnswer: number }>
  readonly bytesSent: () => number
}

/**
 * POSTs `total` bytes in 64 KiB chunks every 20 ms, chunked (no Content-Length), as a slow client
 * does; stops sending as soon as the server answers.
 */
const slowPost = (target: TestServer, path: string, headers: Record<string, string>, total: number): SlowPost => {
  let sent = 0
  const req = request(`${target.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers }
  })
  const timer = setInterval(() => {
    if (sent >= total) return void req.end()
    req.write(Buffer.alloc(64 * 1024, " "))
    sent += 64 * 1024
  }, 20)
  const answered = new Promise<{ status: number; body: string; sentBeforeAnswer: number }>((resolve, reject) => {
    req.on("response", (res) => {
      clearInterval(timer)
      const sentBeforeAnswer = sent
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString()))
      res.on("end", () => {
        req.destroy()
        resolve({ status: res.statusCode!, body, sentBeforeAnswer })
      })
    })
    req.on("error", (error) => {
      clearInterval(timer)
      reject(error)
    })
  })
  return { answered, bytesSent: () => sent }
}

/** Milliseconds /healthz takes to answer, measured by the client. */
const healthLatency = async (target: TestServer) => {
  const started = performance.now()
  const res = await fetch(`${target.url}/healthz`)
  expect(res.status).toBe(200)
  return performance.now() - started
}

describe("one body-size limit on every surface (issue 10)", () => {
  const bigBody = "a 5 MB body with a key is refused with 413 while /healthz keeps answering, even beside a slow upload"
  it(bigBody, async () => {
    const tenant = await createTenant(server)
    const slow = slowPost(server, "/api/v1/public/clients", { "x-api-key": tenant.key }, 5 * MiB)
    await new Promise((resolve) => setTimeout(resolve, 100))

    const body = bigArray(5 * MiB)
    const [big, latencies] = await Promise.all([
      fetch(`${server.url}/api/v1/public/clients`, {
        method: "POST",
        headers: { "x-api-key": tenant.key, "content-type": "application/json" },
        body
      }),
      (async () => {
        const measured: number[] = []
        for (let i = 0; i < 5; i++) measured.push(await healthLatency(server))
        return measured
      })()
    ])
    expect(big.status).toBe(413)
    expect(await big.json()).toEqual(problem(LIMIT_DETAIL, "PAYLOAD_TOO_LARGE"))
    // The requirement: the process keeps answering while large bodies arrive.
    expect(Math.max(...latencies)).toBeLessThan(1000)

    // The slow upload declared no length: it is counted as it arrives and cut at the limit.
    const slowAnswer = await slow.answered
    expect(slowAnswer.status).toBe(413)
    expect(JSON.parse(slowAnswer.body)).toEqual(problem(LIMIT_DETAIL, "PAYLOAD_TOO_LARGE"))
    expect(slowAnswer.sentBeforeAnswer).toBeLessThan(2 * MiB)

    // The connection of a refused body stays usable, and the server is unharmed.
    expect((await call(server, "/api/v1/public/clients", { key: tenant.key })).status).toBe(200)
  })

  it("without a valid key a large body gets 401 before it has been sent, so unread", async () => {
    const strangers: ReadonlyArray<Record<string, string>> = [{}, { "x-api-key": `fid_${"x".repeat(32)}` }]
    for (const headers of strangers) {
      const upload = slowPost(server, "/api/v1/public/points/credit", headers, 5 * MiB)
      const answer = await upload.answered
      expect(answer.status).toBe(401)
      expect(JSON.parse(answer.body)).toEqual(
        problem(expect.stringMatching(/Missing API key|Invalid or revoked API key/), "UNAUTHENTICATED")
      )
      expect(answer.sentBeforeAnswer).toBeLessThan(MiB)
    }
    // tRPC and MCP too: their authentication runs before anything reads the body.
    for (const path of ["/trpc/points.credit", "/mcp"]) {
      const answer = await slowPost(server, path, {}, 5 * MiB).answered
      expect(answer.status, path).toBe(401)
      expect(answer.sentBeforeAnswer, path).toBeLessThan(MiB)
    }
  })

  it("tRPC and MCP refuse a body over the limit with 413 in their own error shapes", async () => {
    const tenant = await createTenant(server)
    const body = JSON.stringify({ client_id: crypto.randomUUID(), points: 1, description: "x".repeat(2 * MiB) })
    const trpc = await call(server, "/trpc/points.credit", { key: tenant.key, body })
    expect(trpc.status).toBe(413)
    expect(trpc.body.error.data).toMatchObject({ code: "PAYLOAD_TOO_LARGE", httpStatus: 413, detail: LIMIT_DETAIL })

    const mcp = await call(server, "/mcp", {
      key: tenant.key,
      headers: { accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "credit_points", arguments: JSON.parse(body) }
      })
    })
    expect(mcp.status).toBe(413)
    expect(mcp.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: LIMIT_DETAIL, data: problem(LIMIT_DETAIL, "PAYLOAD_TOO_LARGE") }
    })
  })

  it("FIDELIS_MAX_BODY_BYTES sets the limit", async () => {
    const small = await startServer({ env: { FIDELIS_MAX_BODY_BYTES: "2048" } })
    try {
      const tenant = await createTenant(small)
      const over = await call(small, "/api/v1/public/clients", { key: tenant.key, body: { nome: "x".repeat(3000) } })
      expect(over.status).toBe(413)
      expect(over.body).toEqual(problem("Request body exceeds the limit of 2048 bytes", "PAYLOAD_TOO_LARGE"))
      expect((await call(small, "/api/v1/public/clients", { key: tenant.key, body: { nome: "Ana" } })).status).toBe(201)
    } finally {
      await small.stop()
    }
  })
})

describe("validation errors stay small", () => {
  it("a body with thousands of invalid fields lists 20 and says how many more", async () => {
    const tenant = await createTenant(server)
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field_${i}`, i]))
    const res = await call(server, "/api/v1/public/clients", { key: tenant.key, body: unknown })
    expect(res.status).toBe(422)
    expect(res.body.detail).toHaveLength(21)
    expect(res.body.detail[0]).toEqual({ loc: ["body", "nome"], msg: expect.any(String), type: "missing" })
    expect(res.body.detail[1]).toEqual({
      loc: ["body", "field_0"],
      msg: expect.stringMatching(/^Unknown field; the fields are: nome, email, /),
      type: "extra_forbidden"
    })
    expect(res.body.detail[20]).toEqual({
      loc: ["body"],
      msg: expect.stringMatching(/^4981 more errors/),
      type: "too_many_errors"
    })
  })

  it("an array where an object is expected is one item, not one per element", async () => {
    const tenant = await createTenant(server)
    const res = await call(server, "/api/v1/public/clients", { key: tenant.key, body: bigArray(MiB / 2) })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ["body"], msg: expect.any(String), type: "object_type" }])
  })
})
