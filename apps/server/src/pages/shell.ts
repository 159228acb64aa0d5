import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { escapeHtml as e } from "@fidelis/core"

/**
 * What every page this server renders shares (the survey page, the account email pages): the HTML
 * shell, the base style and the headers. Each page's style and script are inline, allowed by a
 * per-response nonce, so nothing but this server's own responses runs on the page.
 */

const BASE_STYLE = readFileSync(new URL("./base.css", import.meta.url), "utf8")
const BASE_SCRIPT = readFileSync(new URL("./api.js", import.meta.url), "utf8")

/** The brand colour of a page no empresa's settings colour. */
export const DEFAULT_BRAND = "#2563eb"

/** A fresh nonce for one response's inline style and script. */
export const pageNonce = () => randomBytes(16).toString("base64")

/**
 * The only other origins are images (an empresa's logo: any https one); the page talks to the API on
 * this same origin. No referrer and no caching: a page's address can carry a single-use token, and
 * what it shows (a survey, a colour) can change.
 */
export const pageHeaders = (nonce: string): Record<string, string> => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' https: data:; ` +
    `connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
})

/** White or near-black, whichever reads better on the brand colour (WCAG relative luminance). */
const textOn = (hex: string) => {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
  // Equal contrast against white and #111 sits near luminance 0.18.
  return luminance > 0.18 ? "#111111" : "#ffffff"
}

export interface PageOptions {
  readonly title: string
  readonly nonce: string
  /** `#rrggbb`, already checked. */
  readonly color?: string
  /** The page's own style, after the base one. */
  readonly style?: string
  readonly body: string
  /** The page's module script, if it has one: it runs after ./api.js, in the same module. */
  readonly script?: string
}

/** A whole pt-BR page: the people who open these pages are the empresas' Brazilian customers. */
export const pageHtml = ({ title, nonce, color = DEFAULT_BRAND, style = "", body, script }: PageOptions) =>
  [
    "<!doctype html>",
    `<html lang="pt-BR"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    // No icon: a browser would otherwise ask for /favicon.ico on every page opened.
    `<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>${e(title)}</title>`,
    `<style nonce="${nonce}">:root{--brand:${color};--on-brand:${textOn(color)}}`,
    `${BASE_STYLE}${style}</style></head>`,
    `<body>${body}`,
    script === undefined ? "" : `<script type="module" nonce="${nonce}">${BASE_SCRIPT}\n${script}</script>`,
    "</body></html>"
  ].join("")

/** A page with a heading and a sentence, for what the person cannot fix. */
export const messageHtml = (title: string, text: string, nonce: string): string =>
  pageHtml({ title, nonce, body: `<main><section><h1>${e(title)}</h1><p>${e(text)}</p></section></main>` })

/** A response carrying a rendered page with the pages' headers, beside any the API set (rate limits). */
export const pageResponse = (html: string, nonce: string, status = 200, headers = new Headers()) => {
  for (const [name, value] of Object.entries(pageHeaders(nonce))) headers.set(name, value)
  return new Response(html, { status, headers })
}
