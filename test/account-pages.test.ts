import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import * as phone from "./support/browser.js"
import { bearer, call, emailedToken, logIn, registerAccount, useEndUserServer } from "./support/index.js"

/**
 * The pages the account emails link to (`/account/verify-email`, `/account/reset-password`) in a
 * real browser (support/browser.ts): the link is taken from the email the SMTP sink received, and
 * the end-user API then shows what the page did.
 */

const { server, sink } = await useEndUserServer()

/** The link of the latest account email of `kind` to `email`, as its text part shows it. */
const emailedLink = async (email: string, kind: "verify_email" | "reset_password") => {
  const { text } = await emailedToken(sink, email, kind)
  const link = /https?:\/\/\S+\/account\/\S+/.exec(text)?.[0]
  if (link === undefined) throw new Error(`no link in the ${kind} email:\n${text}`)
  return link
}

const token = (link: string) => new URL(link).searchParams.get("token")!

describe.skipIf(phone.skipBrowser)(`the account email pages in Chromium${phone.browserSkipNote}`, () => {
  let page: Page
  phone.usePhone((opened) => (page = opened))

  /** Opens a page and checks the headers that keep its token from leaking. */
  const open = async (url: string, status = 200) => {
    const res = await page.goto(url)
    expect(res?.status()).toBe(status)
    const headers = res!.headers()
    expect(headers["referrer-policy"]).toBe("no-referrer")
    expect(headers["cache-control"]).toBe("no-store")
    expect(headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; /)
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR")
  }

  it("verifies the email with a tap on the emailed link's button, once", async () => {
    const account = await registerAccount(server)
    const link = await emailedLink(account.user.email, "verify_email")
    expect(link.startsWith(`${server.url}/account/verify-email?token=`)).toBe(true)
    await open(link)
    // The token stays in the address: the page's HTML does not carry it.
    expect(await page.content()).not.toContain(token(link))
    await phone.expectAccessible(page, "verification page")
    const me = (access: string) => call(server, "/api/v1/users/me", { method: "GET", headers: bearer(access) })
    // Opening the link (as a mail scanner does) verifies nothing: only the button does.
    expect((await me(account.access_token)).body.email_verified).toBe(false)

    await page.getByRole("button", { name: "Confirmar meu e-mail" }).click()
    await phone
      .textOf(page.locator("#outcome"))
      .toBe("E-mail confirmado! Entre de novo no aplicativo para ver seus pontos.")
    expect(await page.locator("#outcome").getAttribute("aria-live")).toBe("polite")
    // The proof ended the session opened before it; a new login sees the address verified.
    expect((await me(account.access_token)).status).toBe(401)
    expect((await me((await logIn(server, account.user.email)).access_token)).body.email_verified).toBe(true)
    await phone.expectAccessible(page, "email verified")

    await open(link)
    await page.getByRole("button", { name: "Confirmar meu e-mail" }).click()
    await phone
      .textOf(page.locator("#outcome"))
      .toBe("Este link já foi usado ou expirou. Peça um novo link pelo aplicativo.")
    await phone.visible(page.getByRole("button", { name: "Confirmar meu e-mail" })).toBe(false)
    await phone.expectAccessible(page, "used link")
  })

  it("sets a new password through the emailed reset link, stating and showing the API's rule", async () => {
    const account = await registerAccount(server)
    const email = account.user.email
    expect((await call(server, "/api/v1/auth/request-password-reset", { body: { email } })).status).toBe(202)
    const link = await emailedLink(email, "reset_password")
    expect(link.startsWith(`${server.url}/account/reset-password?token=`)).toBe(true)
    await open(link)
    expect(await page.content()).not.toContain(token(link))
    await phone.visible(page.getByText("De 8 a 128 caracteres.")).toBe(true)
    const password = page.getByLabel("Nova senha", { exact: true })
    const confirmation = page.getByLabel("Repita a nova senha")
    expect(await password.getAttribute("autocomplete")).toBe("new-password")
    expect(await confirmation.getAttribute("autocomplete")).toBe("new-password")
    await phone.expectAccessible(page, "reset page")

    const save = page.getByRole("button", { name: "Salvar nova senha" })
    await password.fill("curta")
    await confirmation.fill("curta")
    await save.click()
    // The API's own message, beside the field it is about.
    await phone.textOf(page.locator("#password-error")).toBe("Password must be 8 to 128 characters")
    await phone.focused(password).toBe(true)
    expect(await password.getAttribute("aria-invalid")).toBe("true")
    await phone.expectAccessible(page, "too short a password")

    await password.fill("nova-senha-forte")
    await confirmation.fill("nova-senha-forte")
    await save.click()
    await phone.textOf(page.locator("#outcome")).toBe("Senha alterada! Entre no aplicativo com a nova senha.")
    const login = (pass: string) => call(server, "/api/v1/auth/login", { body: { email, password: pass } })
    expect((await login("nova-senha-forte")).status).toBe(200)
    expect((await login("segredo123")).status).toBe(401)
    await phone.expectAccessible(page, "password changed")
  })

  it("says a link without its token is incomplete", async () => {
    for (const path of ["/account/verify-email", "/account/reset-password?token="]) {
      await open(`${server.url}${path}`, 400)
      expect(await page.getByRole("heading").textContent()).toBe("Link incompleto")
      expect(await page.locator("button").count()).toBe(0)
    }
    await phone.expectAccessible(page, "incomplete link")
  })
})
