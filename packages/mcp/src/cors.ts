const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * A same-origin page on a loopback host cannot be a DNS-rebinding attack: rebinding makes the
 * browser send the attacker's host name, and no public name can be `localhost` or a loopback IP.
 */
const isLoopbackSameOrigin = (origin: string, host: string | null): boolean => {
  if (host === null || !URL.canParse(origin)) return false
  const url = new URL(origin)
  return url.host === host.toLowerCase() && LOOPBACK_HOSTS.has(url.hostname)
}

/**
 * DNS-rebinding defence (MCP transport spec): a browser page may reach the tool server only from a
 * listed origin or from the server's own loopback origin; a request without `Origin` is no page's.
 */
export const isAllowedOrigin = (origins: ReadonlySet<string>, origin: string, host: string | null): boolean =>
  origins.has(origin) || isLoopbackSameOrigin(origin, host)

/** What a browser may send: the key's two headers, MCP's own, and the request id and empresa a caller names. */
const ALLOWED_HEADERS = [
  "Content-Type",
  "Accept",
  "Authorization",
  "X-API-Key",
  "Fidelis-Empresa",
  "X-Request-Id",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID"
].join(", ")

/** What a page's script may read of an answer: MCP's headers (the transport spec names Mcp-Session-Id) and ours. */
const EXPOSED_HEADERS = [
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
  "WWW-Authenticate",
  "Retry-After",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Request-Id"
].join(", ")

/** The CORS headers of every answer to an allowed browser origin; no credentials mode, as the key is a header. */
export const corsHeaders = (origin: string): Record<string, string> => ({
  "Access-Control-Allow-Origin": origin,
  "Access-Control-Expose-Headers": EXPOSED_HEADERS,
  Vary: "Origin"
})

/**
 * A preflight's answer. GET and DELETE are allowed through, although this stateless server answers
 * them 405, so that a page's MCP client reads that 405 (no stream, no session) instead of a network
 * error: the SDK client treats a 405 to its GET as "no stream offered".
 */
export const preflight = (origin: string): Response =>
  new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      "Access-Control-Allow-Methods": "POST, GET, DELETE",
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": "600"
    }
  })
