import { once } from "node:events"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fidelis } from "../../packages/cli/test/bin.js"

// Review item 6: a server answering 307 to another origin received the CLI's X-API-Key there too
// (fetch drops only Authorization across origins). The CLI now follows no redirect and says why.

const KEY = "fid_redirect-test-key-0123456789abcdef"

/** A local HTTP server recording the X-API-Key of each request it gets. */
const listen = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
  const keys: Array<string | undefined> = []
  const server = createServer((req, res) => {
    keys.push(req.headers["x-api-key"] as string | undefined)
    answer(req, res)
  }).listen(0, "127.0.0.1")
  await once(server, "listening")
  return { server, keys, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

let elsewhere: Awaited<ReturnType<typeof listen>>
let redirector: Awaited<ReturnType<typeof listen>>

beforeAll(async () => {
  // What a key thief answers: a tRPC-shaped success, so a client that got here would not even fail.
  elsewhere = await listen((_, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ result: { data: { data: [], total: 0, page: 1, pages: 0, per_page: 20 } } }))
  })
  // Another origin (another port): 307 keeps the method and body, and fetch would keep X-API-Key.
  redirector = await listen((req, res) => {
    res.writeHead(307, { location: `${elsewhere.url}${req.url}` })
    res.end()
  })
})

const close = (server: Server) => new Promise((resolve) => server.close(resolve))
afterAll(async () => {
  await Promise.all([redirector, elsewhere].filter(Boolean).map(({ server }) => close(server)))
})

describe("the CLI and a redirect to another origin", () => {
  it("refuses to follow it, so the key never reaches the other server, and says why", async () => {
    const outcome = await fidelis(["--url", redirector.url, "clients", "list"], { FIDELIS_API_KEY: KEY })
    expect(redirector.keys).toEqual([KEY])
    expect(elsewhere.keys).toEqual([])
    expect(outcome.code).toBe(1)
    expect(outcome.stdout).toBe("")
    const [before, after] = outcome.stderr.split("?")
    expect(before).toBe(`error: ${redirector.url}/trpc answered 307, a redirect to ${elsewhere.url}/trpc/clients.list`)
    expect(after!.replace(/^[^;]*; /, "")).toBe(
      "the CLI follows no redirect, so the API key is sent only to the server --url names: " +
        "give the final address as --url\n"
    )
  }, 60_000)
})
