import type { Page } from "playwright-core"
import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink, type SmtpSink } from "../../packages/core/test/smtp-sink.js"
import { bearer, endUserEnv, registerAccount } from "../support/accounts.js"
import { browserSkipNote, skipBrowser, textOf, usePhone, visible } from "../support/browser.js"
import { useServer, useTenant } from "../support/hooks.js"
import { call } from "../support/http.js"

/**
 * The API's answers (a client's balance, a profile, a token pair) carried neither
 * `X-Content-Type-Options: nosniff` nor `Cache-Control: no-store`: a shared or browser cache could
 * keep one caller's answer, and a browser could sniff a JSON body into something it runs. And the
 * reference at /docs kept a key typed into "Authorize" in the browser's storage for the next visit.
 */

const sink: SmtpSink = await startSmtpSink()
afterAll(() => sink.close())

const server = useServer({ env: endUserEnv(sink) })
const tenant = useTenant(server)

const expectPrivate = (headers: Headers, what: string) => {
  expect(headers.get("x-content-type-options"), what).toBe("nosniff")
  expect(headers.get("cache-control"), what).toBe("no-store")
}

describe("authenticated API answers", () => {
  it("carry nosniff and no-store on every surface, refusals included", async () => {
    const session = await registerAccount(server)
    const answers = {
      "REST company API": await call(server, "/api/v1/public/clients", { key: tenant.key }),
      "REST end-user API": await call(server, "/api/v1/users/me", { headers: bearer(session.access_token) }),
      "REST admin API": await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, { key: server.adminKey }),
      "REST login": await call(server, "/api/v1/auth/login", {
        body: { email: session.user.email, password: "segredo123" }
      }),
      tRPC: await call(server, "/trpc/clients.list?input=%7B%7D", { key: tenant.key }),
      "a refused key": await call(server, "/api/v1/public/clients", { key: "fid_not-a-key-of-this-server-at-all00" }),
      "an unknown route": await call(server, "/api/v1/public/nowhere", { key: tenant.key })
    }
    for (const [what, res] of Object.entries(answers)) {
      expect(res.headers.get("content-type"), what).toContain("json")
      expectPrivate(res.headers, what)
    }
    expect(answers["REST company API"].status).toBe(200)
    expect(answers["REST end-user API"].status).toBe(200)
    expect(answers["REST login"].status).toBe(200)
    expect(answers.tRPC.status).toBe(200)
  })

  it("MCP's answers too", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "x-api-key": tenant.key,
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "headers", version: "1" } }
      })
    })
    await res.text()
    expect(res.status).toBe(200)
    expectPrivate(res.headers, "MCP")
  })

  it("the OpenAPI documents stay cacheable by their ETag, and the reference's assets for a day", async () => {
    const document = await call(server, "/api/v1/public/openapi.json")
    expect(document.headers.get("cache-control")).toBe("no-cache")
    expect(document.headers.get("etag")).toBeTruthy()
    expect(document.headers.get("x-content-type-options")).toBe("nosniff")
    const asset = await call(server, "/docs/assets/swagger-ui.css")
    expect(asset.headers.get("cache-control")).toBe("public, max-age=86400")
  })
})

describe("the /docs pages", () => {
  it("configure Swagger UI not to persist what is typed into Authorize", async () => {
    for (const path of ["/docs", "/docs/end-user"]) {
      const page = String((await call(server, path)).body)
      expect(page, path).toContain("persistAuthorization: false")
    }
  })
})

describe.skipIf(skipBrowser)(`a key typed into /docs in Chromium${browserSkipNote}`, () => {
  let page: Page
  usePhone((opened) => (page = opened))

  /** Types `key` into the first API-key field of the Authorize dialog and authorizes, as a person would. */
  const authorize = async (key: string) => {
    await page.locator(".swagger-ui .auth-wrapper button.authorize").click()
    const dialog = page.locator(".swagger-ui .modal-ux")
    await dialog.locator(".auth-container input").first().fill(key)
    await dialog.locator(".auth-container button.authorize").first().click()
    await visible(dialog.locator(".auth-container button.logout").first())
    await dialog.locator("button.btn-done").first().click()
  }

  it("is gone on the next visit, and was never in the browser's storage", async () => {
    await page.goto(`${server.url}/docs`)
    await textOf(page.locator(".swagger-ui .info .title")).toMatch(/Fidelis/)
    const typed = "fid_typed-into-the-reference-page-000000"
    await authorize(typed)
    const stored = () => page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))
    expect(await stored()).not.toContain(typed)

    await page.goto(`${server.url}/docs`)
    await textOf(page.locator(".swagger-ui .info .title")).toMatch(/Fidelis/)
    const authorized = await page.evaluate(() =>
      JSON.stringify(
        (window as unknown as { ui: { authSelectors: { authorized(): { toJS(): unknown } } } }).ui.authSelectors
          .authorized()
          .toJS()
      )
    )
    expect(authorized).not.toContain(typed)
    expect(await stored()).not.toContain(typed)
  })
})
