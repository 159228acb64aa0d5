import { describe, expect, it } from "vitest"
import { useServer, useTenant } from "../support/hooks.js"
import { call } from "../support/http.js"

/**
 * `javascript:` and other non-http(s) URLs in URL fields: a review link the survey page renders as a
 * link, logos and pictures it and the emails show. Every URL field refuses them with a 422 naming it.
 */
const server = useServer()
const tenant = useTenant(server)

const HOSTILE = [
  "javascript:alert(document.cookie)",
  "JavaScript:alert(1)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "data:image/svg+xml,<svg onload=alert(1)>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "ftp://example.com/logo.png",
  "mailto:someone@example.com"
]

/** Each request with `url` in its URL field: all must be 422 at that field. */
const targets = (url: string) => [
  ...["url_review_avaliation", "logo_url"].map((setting) => ({
    what: `settings.${setting}`,
    send: () =>
      call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
        method: "PATCH",
        key: server.adminKey,
        body: { settings: { [setting]: url } }
      })
  })),
  {
    what: "logo_url",
    send: () =>
      call(server, "/api/v1/public/store-profile", { method: "PUT", key: tenant.key, body: { logo_url: url } })
  },
  {
    what: "image_url",
    send: () =>
      call(server, "/api/v1/public/products", {
        key: tenant.key,
        body: { name: "Caneca", points_cost: 10, image_url: url }
      })
  },
  {
    what: "image_url",
    send: () =>
      call(server, "/api/v1/public/loyalty-cards/programs", {
        key: tenant.key,
        body: { name: "Cartão", stamps_required: 5, reward_description: "Um café", image_url: url }
      })
  }
]

describe("URL fields accept http and https only", () => {
  it("refuses every other scheme with a 422 at the field", async () => {
    for (const url of HOSTILE) {
      for (const target of targets(url)) {
        const res = await target.send()
        expect(res.status, `${target.what} = ${url}: ${JSON.stringify(res.body)}`).toBe(422)
        expect(res.body.detail[0].loc.join("."), url).toMatch(new RegExp(`${target.what.replace(".", "\\.")}$`))
      }
    }
  })

  it("still takes http and https URLs", async () => {
    for (const url of ["https://cdn.example.com/logo.png", "http://loja.example.com.br/avaliar?x=1"]) {
      for (const target of targets(url)) {
        const res = await target.send()
        expect(res.status, `${target.what} = ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
      }
    }
  })
})
