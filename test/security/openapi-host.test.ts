import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { useServer, type TestServer } from "../support/index.js"

// Review item 3: each new Host header rebuilt the OpenAPI document (70-117 ms of CPU, without a key)
// and was reflected into its servers URL. A document is now built once and names no request's host.

const DOCUMENTS = ["/api/v1/public/openapi.json", "/api/v1/internal/openapi.json", "/api/v1/openapi.json"]

interface Fetched {
  readonly status: number
  readonly etag: string | undefined
  readonly text: string
}

/** GET with a Host header of the caller's choosing, as any client can send (fetch would not let it). */
const getWithHost = (server: TestServer, path: string, host: string, headers: Record<string, string> = {}) =>
  new Promise<Fetched>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers: { ...headers, host } }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, text }))
    })
    req.on("error", reject)
    req.end()
  })

/** Two hosts an attacker names; neither may shape what anyone else is served. */
const HOSTS = ["attacker.example", "other-attacker.example:8443"]

describe("the OpenAPI documents without FIDELIS_PUBLIC_URL", () => {
  const server = useServer()

  it("are the same bytes and ETag whatever the Host, with a relative server URL", async () => {
    for (const path of DOCUMENTS) {
      const [first, second] = await Promise.all(HOSTS.map((host) => getWithHost(server, path, host)))
      expect(first!.status, path).toBe(200)
      for (const host of HOSTS) expect(first!.text, path).not.toContain(host.split(":")[0])
      expect(JSON.parse(first!.text).servers, path).toEqual([{ url: path.replace("/openapi.json", "") }])
      expect(second!.text, path).toBe(first!.text)
      // Built once: the same ETag for every caller, not a document per Host.
      expect(first!.etag, path).toMatch(/^"[\w-]+"$/)
      expect(second!.etag, path).toBe(first!.etag)
    }
  })

  it("answer 304 to the ETag they gave", async () => {
    const path = DOCUMENTS[0]!
    const { etag } = await getWithHost(server, path, HOSTS[0]!)
    const again = await getWithHost(server, path, HOSTS[1]!, { "if-none-match": etag! })
    expect(again.status).toBe(304)
    expect(again.text).toBe("")
  })
})

describe("the OpenAPI documents with FIDELIS_PUBLIC_URL", () => {
  const PUBLIC_URL = "https://fidelis.example.com"
  const server = useServer({ env: { FIDELIS_PUBLIC_URL: PUBLIC_URL } })

  it("name the public URL, never the Host a request sent", async () => {
    for (const path of DOCUMENTS) {
      const [first, second] = await Promise.all(HOSTS.map((host) => getWithHost(server, path, host)))
      expect(second!.text, path).toBe(first!.text)
      expect(JSON.parse(first!.text).servers, path).toEqual([
        { url: `${PUBLIC_URL}${path.replace("/openapi.json", "")}` }
      ])
      for (const host of HOSTS) expect(first!.text, path).not.toContain(host.split(":")[0])
    }
  })
})
