// What every page's script shares: a JSON call to this origin's API and the sentence its failure reads as.
// Exported only so the linter sees them used: each page's script is this one's continuation in a single module.

/** `{ ok, status, body }`; status 0 when the request never got an answer. */
export const request = async (method, url, body, headers = {}) => {
  try {
    const res = await fetch(url, {
      method,
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body)
    })
    return { ok: res.ok, status: res.status, body: await res.json().catch(() => ({})) }
  } catch {
    return { ok: false, status: 0, body: {} }
  }
}

/** Every rule is the API's: its `detail` is what the person reads. */
export const messageOf = ({ status: code, body }) => {
  if (code === 0) return "Sem conexão. Verifique a internet e tente de novo."
  if (code === 429) return "Muitas tentativas seguidas. Aguarde um minuto e tente de novo."
  if (typeof body.detail === "string") return body.detail
  if (Array.isArray(body.detail)) return body.detail.map((issue) => issue.msg).join("; ")
  return "Algo deu errado do nosso lado. Tente de novo em instantes."
}
