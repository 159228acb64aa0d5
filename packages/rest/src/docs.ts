import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/** The API reference page, served from the swagger-ui-dist package: no CDN, works offline. */

const assetsDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"))

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png"
}

const cache = new Map<string, Buffer>()

/** Only the named files are served, so the route can never read outside the package. */
export const docsAsset = (name: string): Response => {
  const type = ASSETS[name]
  if (type === undefined) return new Response("Not found", { status: 404 })
  let body = cache.get(name)
  if (body === undefined) {
    body = readFileSync(join(assetsDir, name))
    cache.set(name, body)
  }
  return new Response(new Uint8Array(body), {
    headers: { "content-type": type, "cache-control": "public, max-age=86400" }
  })
}

/**
 * The reference page's HTML. Its one inline script and its two assets carry `nonce`, so the server
 * can serve it under the same strict Content-Security-Policy as its other pages (no other script).
 * A key typed into "Authorize" lives as long as the page: persisted, it would wait in the browser's
 * storage for whoever opens the page next.
 */
export const docsHtml = (specUrl: string, assetsBase: string, nonce: string): string =>
  `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Fidelis API reference</title>
  <link rel="icon" href="${assetsBase}/favicon-32x32.png">
  <link rel="stylesheet" href="${assetsBase}/swagger-ui.css" nonce="${nonce}">
</head>
<body>
  <div id="reference"></div>
  <script src="${assetsBase}/swagger-ui-bundle.js" nonce="${nonce}"></script>
  <script nonce="${nonce}">
    window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#reference", deepLinking: true, ` +
  `persistAuthorization: false })
  </script>
</body>
</html>`
