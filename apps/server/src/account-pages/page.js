// The account email pages' behaviour: the email's token, read from this page's address (the HTML never
// carries it), goes to the end-user API with what the person entered; the answer is shown in #outcome.
// `request` and `messageOf` come from ../pages/api.js, this script's start.
const byId = (id) => document.getElementById(id)
const token = new URLSearchParams(location.search).get("token") ?? ""
const outcome = byId("outcome")
let busy = false

const report = (text, ok) => {
  outcome.className = ok ? "success" : "error"
  outcome.textContent = text
}

/** A used, expired or altered link is the API's 404: the person needs a new email, not another try. */
const USED = "Este link já foi usado ou expirou. Peça um novo link pelo aplicativo."

const post = async (form, path, body) => {
  busy = true
  // aria-disabled rather than disabled: the button keeps its focus while the request runs.
  const button = form.querySelector("button")
  button.setAttribute("aria-disabled", "true")
  report("Enviando…", true)
  const result = await request("POST", `/api/v1/auth/${path}`, body)
  button.setAttribute("aria-disabled", "false")
  busy = false
  if (result.ok || result.status === 404) form.hidden = true
  return result
}

const verify = byId("verify")
verify?.addEventListener("submit", async (event) => {
  event.preventDefault()
  if (busy) return
  const result = await post(verify, "verify-email", { token })
  // The proof ended every session opened before it (docs/decisions.md "Access tokens die with their session").
  if (result.ok) return report("E-mail confirmado! Entre de novo no aplicativo para ver seus pontos.", true)
  report(result.status === 404 ? USED : messageOf(result), false)
})

const reset = byId("reset")
reset?.addEventListener("submit", async (event) => {
  event.preventDefault()
  if (busy) return
  const password = byId("password")
  const confirmation = byId("confirmation")
  const mark = (input, text) => {
    byId(`${input.id}-error`).textContent = text
    input.setAttribute("aria-invalid", String(text !== ""))
  }
  mark(password, "")
  // The only check made here: the API takes one password, the repetition guards against a typo.
  mark(confirmation, confirmation.value === password.value ? "" : "As senhas não são iguais.")
  if (confirmation.value !== password.value) return confirmation.focus()
  const result = await post(reset, "reset-password", { token, password: password.value })
  if (result.ok) return report("Senha alterada! Entre no aplicativo com a nova senha.", true)
  // A 422 names each refused value in `loc`: the password's message goes beside it.
  const issues = Array.isArray(result.body.detail) ? result.body.detail : []
  const about = issues.filter((issue) => issue.loc.at(-1) === "password").map((issue) => issue.msg)
  if (about.length > 0) {
    report("", false)
    mark(password, about.join("; "))
    return password.focus()
  }
  report(result.status === 404 ? USED : messageOf(result), false)
})
