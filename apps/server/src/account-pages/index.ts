import { readFileSync } from "node:fs"
import { escapeHtml as e, PASSWORD_LENGTH } from "@fidelis/core"
import type { H3Event } from "h3"
import { messageHtml, pageHtml, pageNonce, pageResponse } from "../pages/shell.js"

/**
 * The pages the account emails link to (packages/core/src/accounts/mail.ts): views over the end-user
 * API's `/auth/verify-email` and `/auth/reset-password`, which page.js calls. The token stays in the
 * address: the script reads it from there, so the HTML never carries it, and the pages' headers
 * (no referrer, no cache) keep it from leaking further.
 */

const SCRIPT = readFileSync(new URL("./page.js", import.meta.url), "utf8")

export type AccountPageKind = "verify-email" | "reset-password"

/** Where a finished or failed step leaves the person. */
const outcome = `<p id="outcome" aria-live="polite"></p>`

const verifyBody = () =>
  `<main data-page="verify-email"><section aria-labelledby="title">` +
  `<h1 id="title">Confirme seu e-mail</h1>` +
  `<p>Toque no botão para confirmar que este endereço de e-mail é seu.</p>` +
  // A button, not a request on load: mail scanners open links first and would use up the single-use token.
  `<form id="verify" novalidate><button type="submit">Confirmar meu e-mail</button></form>${outcome}` +
  `</section></main>`

const passwordRule = `De ${PASSWORD_LENGTH.min} a ${PASSWORD_LENGTH.max} caracteres.`

const passwordInput = (id: string, label: string, hint: string) =>
  `<label class="field-label" for="${id}">${e(label)}</label>` +
  (hint === "" ? "" : `<p id="${id}-hint" class="hint">${e(hint)}</p>`) +
  `<input id="${id}" name="${id}" type="password" autocomplete="new-password" required` +
  ` aria-describedby="${hint === "" ? "" : `${id}-hint `}${id}-error">` +
  `<p id="${id}-error" class="error"></p>`

const resetBody = () =>
  `<main data-page="reset-password"><section aria-labelledby="title">` +
  `<h1 id="title">Crie uma nova senha</h1>` +
  `<form id="reset" novalidate>` +
  passwordInput("password", "Nova senha", passwordRule) +
  passwordInput("confirmation", "Repita a nova senha", "") +
  `<button type="submit">Salvar nova senha</button></form>${outcome}</section></main>`

const PAGES: Record<AccountPageKind, { readonly title: string; readonly body: () => string }> = {
  "verify-email": { title: "Confirme seu e-mail", body: verifyBody },
  "reset-password": { title: "Crie uma nova senha", body: resetBody }
}

/** `GET /account/{kind}?token=…`: the page, or without a token the page saying the link is incomplete. */
export const accountPage =
  (kind: AccountPageKind) =>
  (event: H3Event): Response => {
    const nonce = pageNonce()
    if ((event.url.searchParams.get("token") ?? "") === "") {
      const html = messageHtml(
        "Link incompleto",
        "Este link está faltando um pedaço. Abra de novo o link do e-mail ou copie o endereço inteiro dele.",
        nonce
      )
      return pageResponse(html, nonce, 400)
    }
    const page = PAGES[kind]
    return pageResponse(pageHtml({ title: page.title, nonce, body: page.body(), script: SCRIPT }), nonce)
  }
