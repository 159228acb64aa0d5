// The survey page's behaviour: it sends the answers, then the optional contact, to the public survey
// routes and shows what they answer. Every rule (required answers, the phone) is the API's: its
// `detail` is what the person reads. `request` and `messageOf` come from ../pages/api.js, this script's start.
const main = document.querySelector("main[data-ref]")
const api = `/api/v1/public/quests/${encodeURIComponent(main.dataset.ref)}`
const byId = (id) => document.getElementById(id)
const answers = byId("answers")
const contact = byId("contact")
const status = byId("status")

// One key per page load, so a double tap or a retry stores one response. getRandomValues, not
// randomUUID: a phone on the shop's Wi-Fi may open the page over plain http, not a secure context.
const idempotencyKey = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) =>
  b.toString(16).padStart(2, "0")
).join("")
let responseId
let busy = false

const send = (method, path, body, headers) => request(method, `${api}/${path}`, body, headers)

const show = (id) => {
  for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== id
  byId(`${id}-title`).focus()
}

const setBusy = (form, value) => {
  busy = value
  // aria-disabled rather than disabled: the button keeps its focus while the request runs.
  for (const button of form.querySelectorAll("button")) button.setAttribute("aria-disabled", String(value))
  status.textContent = value ? "Enviando…" : ""
}

const httpLink = (url) => typeof url === "string" && /^https?:\/\//i.test(url)

// The API never says whether the phone is a client's: a promoter's link goes to the client's own email.
const thank = (referralInvite) => {
  byId("referral").hidden = !referralInvite
  show("thanks")
}

answers.addEventListener("submit", async (event) => {
  event.preventDefault()
  if (busy) return
  const response = {}
  for (const field of answers.querySelectorAll("[data-field]")) {
    const name = field.dataset.field
    if (field.dataset.kind === "rating") {
      const checked = field.querySelector("input:checked")
      if (checked) response[name] = Number(checked.value)
    } else {
      const text = field.querySelector("textarea").value.trim()
      if (text !== "") response[name] = text
    }
  }
  setBusy(answers, true)
  const result = await send(
    "POST",
    `${main.dataset.quest}/responses`,
    { response },
    {
      "X-Idempotency-Key": idempotencyKey
    }
  )
  setBusy(answers, false)
  for (const field of answers.querySelectorAll(".invalid")) field.classList.remove("invalid")
  if (result.ok) {
    responseId = result.body.response_id
    if (result.body.cta_review_enabled && httpLink(result.body.cta_review_url)) {
      byId("review-link").href = result.body.cta_review_url
      byId("review").hidden = false
    }
    show("after")
    return
  }
  // 409: this page's key already stored a response (a retry after a lost answer); nothing is left to send.
  if (result.status === 409) return thank(false)
  byId("answers-error").textContent = messageOf(result)
  // The API names each field it refused as response.<id>: mark those and move to the first.
  const named = [...String(result.body.detail).matchAll(/response\.([a-z][a-z0-9_]*)/g)].map((m) => m[1])
  const fields = [...answers.querySelectorAll("[data-field]")].filter((f) => named.includes(f.dataset.field))
  for (const field of fields) field.classList.add("invalid")
  fields[0]?.querySelector("input, textarea")?.focus()
})

contact.addEventListener("submit", async (event) => {
  event.preventDefault()
  if (busy) return
  const name = byId("client-name")
  const phone = byId("client-phone")
  setBusy(contact, true)
  const result = await send("PATCH", `${responseId}/contact`, {
    client_name: name.value,
    client_phone: phone.value
  })
  setBusy(contact, false)
  if (result.ok) return thank(result.body.referral_invite)
  byId("contact-error").textContent = messageOf(result)
  // A 422 says which value broke a bound in `loc`; a 400 is always the phone.
  const refused = Array.isArray(result.body.detail)
    ? result.body.detail.map((issue) => issue.loc.at(-1))
    : result.status === 400
      ? ["client_phone"]
      : []
  name.setAttribute("aria-invalid", String(refused.includes("client_name")))
  phone.setAttribute("aria-invalid", String(refused.includes("client_phone")))
  ;(refused.includes("client_name") ? name : phone).focus()
})

byId("skip").addEventListener("click", () => thank(false))
