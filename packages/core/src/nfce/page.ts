import { parse, type HTMLElement } from "node-html-parser"
import type { InvoiceOutcome } from "./contracts.js"

/** A plain decimal total (`24.13`, `94,90`: the QR's vNF, the XML's vNF) in cents. */
export const decimalCents = (total: string): number => {
  const [whole = "0", fraction = "00"] = total.split(/[.,]/)
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"))
}

/** `1.234,56` (pt-BR, as the pages print money) in cents; null when it is not such a number. */
export const brlCents = (text: string): number | null => {
  const match = /^(\d{1,3}(?:\.\d{3})*|\d+),(\d{2})$/.exec(text.replace(/R\$|\s/g, ""))
  return match ? Number(match[1]?.replaceAll(".", "")) * 100 + Number(match[2]) : null
}

/** The label/value pairs of `div#totalNota` ("Valor a pagar R$:" -> "24,13"). */
const totals = (box: HTMLElement): ReadonlyMap<string, string> =>
  new Map(
    box.querySelectorAll("label").map((label) => [label.text.trim(), label.nextElementSibling?.text.trim() ?? ""])
  )

/** "Emissão: 01/09/2026 10:20:30-03:00" in the header, as ISO 8601; the offset is the page's own. */
const issuedAt = (text: string): string | null => {
  const match = /Emiss[ãa]o:\s*(\d{2})\/(\d{2})\/(\d{4})\s+(\d{2}:\d{2}:\d{2})\s*([+-]\d{2}:\d{2})?/.exec(text)
  return match ? `${match[3]}-${match[2]}-${match[1]}T${match[4]}${match[5] ?? "-03:00"}` : null
}

const CAPTCHA = /g-recaptcha|cf-turnstile|h-captcha|hcaptcha|captcha/i
const NOT_FOUND = /inexistente|n[ãa]o\s+(foi\s+)?encontrad|n[ãa]o\s+consta/i

/**
 * The common national DANFE page most states render (nfce.md section 4): the total to pay (credited,
 * "Valor a pagar", which is after discounts), the item count and the issue date. A page without the
 * totals box is a captcha challenge, an "invoice not found" page, or something we cannot read.
 */
export const parseDanfePage = (html: string): InvoiceOutcome => {
  const root = parse(html)
  const box = root.querySelector("#totalNota")
  if (box !== null) {
    const values = totals(box)
    const total = brlCents(values.get("Valor a pagar R$:") ?? values.get("Valor total R$:") ?? "")
    const items = Number(values.get("Qtd. total de itens:"))
    if (total !== null) {
      return {
        status: "ok",
        total_cents: total,
        items_count: Number.isInteger(items) ? items : null,
        issued_at: issuedAt(root.text)
      }
    }
  }
  if (CAPTCHA.test(html)) return { status: "captcha_required", detail: "The page asks to solve a captcha" }
  if (NOT_FOUND.test(root.text)) return { status: "not_found", detail: "The page says the invoice does not exist" }
  return { status: "unavailable", detail: "The page holds no invoice totals we can read" }
}

/**
 * PE answers with the invoice's XML (`nfeProc`). Credit on `vNF`, what was paid, not `vNFTot`, which
 * adds the 2026 reform's IBS/CBS (nfce.md section 4).
 */
export const parseInvoiceXml = (xml: string): InvoiceOutcome => {
  // node-html-parser lower-cases tag names, so the selectors are lower case.
  const root = parse(xml)
  const total = root.querySelector("icmstot > vnf")?.text.trim()
  if (total !== undefined && /^\d+(\.\d{2})?$/.test(total)) {
    return {
      status: "ok",
      total_cents: decimalCents(total),
      items_count: root.querySelectorAll("det").length,
      issued_at: root.querySelector("ide > dhemi")?.text.trim() ?? null
    }
  }
  const reason = root.querySelector("xmotivo")?.text.trim()
  return root.querySelector("cstat")?.text.trim() === "217" || (reason !== undefined && NOT_FOUND.test(reason))
    ? { status: "not_found", detail: reason ?? "The state has no such invoice" }
    : { status: "unavailable", detail: reason ?? "The XML holds no invoice total" }
}

/** Which parser a body needs: the XML PE serves, or an HTML page. */
export const parseConsultation = (body: string): InvoiceOutcome =>
  /^\s*(<\?xml[^>]*>\s*)?<(nfeProc|NFe|retConsSitNFe)\b/.test(body) ? parseInvoiceXml(body) : parseDanfePage(body)
