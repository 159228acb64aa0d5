/** What the server prints for people: where to look after the first start. */

/** The URL a person on this machine uses: a wildcard interface (0.0.0.0, ::) is reached on loopback. */
export const localUrl = (host: string, port: number) => {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`
}

export interface DemoBannerInput {
  readonly url: string
  readonly empresaName: string
  /** The demo empresa's public slug (id_name): its survey page is `/s/{slug}`. */
  readonly empresaSlug: string
  readonly key: string
  /** A demo client with history, for the per-client examples. */
  readonly clientId: string
}

/**
 * The first start's guide to the demo tenant: its key (shown only now), the API reference, its survey page, curl
 * commands that work as printed (test/quickstart.test.ts runs each one), the CLI through the server with
 * the key in a profile (never on its command line), and an MCP client configuration.
 */
export const demoBanner = ({ url, empresaName, empresaSlug, key, clientId }: DemoBannerInput): string => {
  const api = `${url}/api/v1/public`
  const auth = `-H 'X-API-Key: ${key}'`
  const credit = JSON.stringify({ client_id: clientId, points: 10, description: "My first credit" })
  const mcp = JSON.stringify(
    { mcpServers: { fidelis: { type: "http", url: `${url}/mcp`, headers: { "X-API-Key": key } } } },
    null,
    2
  )
  return [
    "",
    `  Demo empresa "${empresaName}" created, with five weeks of history: clients, points, coupons,`,
    "  stamp cards, rewards and redemptions, referrals, survey answers and NFC-e invoices.",
    "  Its API key (shown only now):",
    "",
    `    ${key}`,
    "",
    `  API reference: ${url}/docs`,
    `  Survey page (what a customer opens from the QR code on the table): ${url}/s/${empresaSlug}`,
    "",
    "  Try it:",
    "",
    `    curl -s ${api}/clients ${auth}`,
    `    curl -s ${api}/clients/${clientId}/timeline ${auth}`,
    `    curl -s ${api}/metrics/overview ${auth}`,
    `    curl -s '${api}/loyalty-cards/metrics?group_by=week' ${auth}`,
    `    curl -s -X POST ${api}/points/credit ${auth} -H 'Content-Type: application/json' -d '${credit}'`,
    "",
    "  The CLI, through this server, with the key in a profile (the second command asks for it without",
    "  echo: paste the key above). Not --api-key: every user of this machine would see it in the process list.",
    "",
    `    npx fidelis config set --profile demo url ${url}`,
    "    npx fidelis config set --profile demo api_key",
    "    npx fidelis --profile demo clients list",
    "",
    "  An MCP client (its JSON configuration):",
    "",
    ...mcp.split("\n").map((line) => `    ${line}`),
    ""
  ].join("\n")
}
