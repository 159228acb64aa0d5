import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { browserSkipNote, skipBrowser, textOf, usePhone } from "../support/browser.js"
import { useServer, useTenant } from "../support/hooks.js"
import { call } from "../support/http.js"

/**
 * The API reference pages (`/docs`, `/docs/end-user`) were served without a Content-Security-Policy
 * and could be framed by any site (clickjacking a page that keeps an API key with
 * `persistAuthorization`). They get the survey page's headers.
 */
const server = useServer()
const tenant = useTenant(server)

const PAGES = ["/docs", "/docs/end-user"]

/** A CSP with its per-response nonce written as NONCE, so two responses' policies compare. */
const policyOf = (headers: Headers) =>
  headers.get("content-security-policy")?.replace(/'nonce-[^']+'/g, "'nonce-NONCE'")

describe("the /docs pages' headers", () => {
  it("carry the survey page's CSP, frame-ancestors 'none' included, and its other headers", async () => {
    const survey = await call(server, `/s/${tenant.empresa.id_name}`)
    expect(survey.status).toBe(200)
    for (const path of PAGES) {
      const res = await call(server, path)
      expect(res.status, path).toBe(200)
      expect(policyOf(res.headers), path).toBe(policyOf(survey.headers))
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'")
      for (const name of ["x-content-type-options", "referrer-policy"]) {
        expect(res.headers.get(name), `${path} ${name}`).toBe(survey.headers.get(name))
      }
      // Every script of the page carries this response's nonce: nothing else may run.
      const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1]
      const scripts = String(res.body).match(/<script[^>]*>/g) ?? []
      expect(scripts.length, path).toBeGreaterThan(0)
      for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`)
    }
  })
})

describe.skipIf(skipBrowser)(`the /docs pages in Chromium under their CSP${browserSkipNote}`, () => {
  let page: Page
  usePhone((opened) => (page = opened))

  // usePhone fails the file if the page logged an error, a CSP refusal included.
  it.for(PAGES)("%s renders its API reference", async (path) => {
    const res = await page.goto(`${server.url}${path}`)
    expect(res?.status()).toBe(200)
    await textOf(page.locator(".swagger-ui .info .title")).toMatch(/Fidelis/)
  })
})
