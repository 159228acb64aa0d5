import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ROOT, startServer, type TestServer } from "./support/index.js"

// The README's quick start on the demo tenant: `npm start` on an empty embedded database (here a
// relative data directory under the ignored test/.data and a free port), what it prints, and the
// walkthrough that output leads to.

const sh = promisify(execFile)
const folder = join("test", ".data", `quickstart-${randomBytes(4).toString("hex")}`)
const env = { FIDELIS_DEMO: "1", FIDELIS_DATA_DIR: join(folder, "data") }

afterAll(() => rmSync(join(ROOT, folder), { recursive: true, force: true }))

/** A response body, read field by field as the OpenAPI document describes it. */
type Body = Record<string, any>
const sum = (rows: unknown, field: string) =>
  (rows as ReadonlyArray<Record<string, number>>).reduce((total, row) => total + row[field]!, 0)

/**
 * Per metric route of the OpenAPI document, the figures the demo must make non-zero: every count
 * the seeded story can produce. A new metric route fails the test until it is listed here.
 */
const FIGURES: Record<string, (b: Body) => Record<string, number>> = {
  "/metrics/overview": ({ clients: c, points: p, coupons: k, redemptions: r }) => ({
    "clients.total": c.total,
    "clients.new": c.new,
    "clients.active": c.active,
    "points.issued": p.issued,
    "points.spent": p.spent,
    "points.refunded": p.refunded,
    "points.outstanding": p.outstanding,
    "coupons.generated": k.generated,
    "coupons.used": k.used,
    "coupons.expired": k.expired,
    "coupons.cancelled": k.cancelled,
    "coupons.active": k.active,
    "coupons.valor_used": k.valor_used,
    "redemptions.created": r.created,
    "redemptions.validated": r.validated,
    "redemptions.pending": r.pending,
    "redemptions.points_spent": r.points_spent
  }),
  "/loyalty-cards/metrics": (b) => ({
    cards_issued: b.cards_issued,
    cards_completed: b.cards_completed,
    cards_active: b.cards_active,
    cards_near_completion: b.cards_near_completion,
    clients_with_card: b.clients_with_card,
    completion_rate: b.completion_rate,
    avg_days_to_complete: b.avg_days_to_complete,
    stamps: sum(b.stamps_by_period, "stamps"),
    completions: sum(b.stamps_by_period, "completions"),
    top_clients: b.top_clients.length
  }),
  "/clients/{client_id}/behavior": ({ visits, points: p, coupons: k, referrals: r, loyalty: l }) => ({
    visits,
    "points.earned": p.earned,
    "points.spent": p.spent,
    "coupons.generated": k.generated,
    "coupons.used": k.used,
    "referrals.made": r.made,
    "referrals.completed": r.completed,
    "loyalty.stamps": l.stamps,
    "loyalty.cards_completed": l.cards_completed
  }),
  // No `referrals_pending`: the product writes a store's referral row when a purchase completes it (a
  // code waiting for one is its account's, at no store yet), and the demo makes only what the product does.
  "/referral-performance": (b) => ({
    referrals_made: b.referrals_made,
    referrals_completed: b.referrals_completed,
    bonus_points_paid: b.bonus_points_paid,
    top_referrers: b.top_referrers.length
  }),
  "/referrals/metrics": (b) => ({
    referrals: b.referrals,
    completed: b.completed,
    bonus_points: b.bonus_points,
    campaigns: b.campaigns.length
  }),
  "/quests/metrics": (b) => ({
    responses: b.responses,
    csat_avg: b.csat_avg,
    nps_responses: b.nps_responses,
    promoters: b.promoters,
    passives: b.passives,
    detractors: b.detractors,
    contacts_captured: b.contacts_captured,
    low_score_alerts_sent: b.low_score_alerts_sent
  }),
  "/nfce/metrics": (b) => ({
    invoices_scanned: b.invoices_scanned,
    invoices_completed: b.invoices_completed,
    invoices_failed: b.invoices_failed,
    invoices_processing: b.invoices_processing,
    total_valor: b.total_valor,
    points_credited: b.points_credited,
    unique_clients: b.unique_clients,
    recurring_clients: b.recurring_clients
  })
}

describe("the quick start on the demo tenant", () => {
  let server: TestServer | undefined
  let key = ""
  let clientId = ""
  let banner = ""

  let output = ""

  // In a hook: `npm start` on an empty directory (install check, migrations, seed) can take long on a busy machine.
  beforeAll(async () => {
    server = await startServer({ npmStart: true, embedded: true, env })
    output = await server.waitForOutput(/An MCP client[\s\S]*\n {4}}\n/)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("npm start on an empty data dir seeds the demo, prints key, docs, survey page, curls, CLI, MCP", async () => {
    banner = output.slice(output.indexOf("  Demo empresa"))
    key = /^ {4}(fid_\S+)$/m.exec(banner)![1]!
    clientId = /\/clients\/([0-9a-f-]{36})\/timeline/.exec(banner)![1]!
    expect(banner).toContain(`API reference: ${server!.url}/docs`)
    const docs = await fetch(`${server!.url}/docs`)
    expect(docs.status).toBe(200)
    // The survey page line follows the API reference, and opens the demo café's survey.
    const surveyUrl = `${server!.url}/s/demo`
    expect(banner).toContain(
      `API reference: ${server!.url}/docs\n  Survey page (what a customer opens from the QR code on the table): ` +
        `${surveyUrl}\n`
    )
    const survey = await fetch(surveyUrl)
    expect(survey.status).toBe(200)
    expect(await survey.text()).toContain("Café Fidelis (demo)")
    expect(output).toContain('"demo tenant created"')
  })

  it("every curl it printed works as printed", async () => {
    const curls = banner.split("\n").flatMap((line) => (line.startsWith("    curl ") ? [line.trim()] : []))
    expect(curls.length).toBeGreaterThanOrEqual(4)
    for (const command of curls) {
      const { stdout } = await sh("sh", ["-c", command], { cwd: ROOT })
      const body = JSON.parse(stdout) as Record<string, unknown>
      expect(body, command).not.toHaveProperty("detail")
      // A list shows the demo's records, not an empty page.
      expect(body["total"] ?? 1, command).toBeGreaterThan(0)
    }
  })

  it("the CLI commands it printed keep the key in a profile and list the demo clients through the server", async () => {
    const commands = banner.split("\n").flatMap((line) => (line.startsWith("    npx fidelis ") ? [line.trim()] : []))
    expect(commands).toHaveLength(3)
    // A config file of the test's own, never the developer's.
    const cliEnv = { ...process.env, FIDELIS_CONFIG: join(ROOT, folder, "cli-config.json") }
    let stdout = ""
    for (const command of commands) {
      const run = sh("sh", ["-c", command], { cwd: ROOT, env: cliEnv })
      // `config set api_key` asks for the key: pasted by a person, piped here.
      run.child.stdin?.end(command.endsWith(" api_key") ? key : "")
      stdout = (await run).stdout
    }
    expect(stdout).toContain("Ana Souza")
    expect(stdout).toMatch(/10 total/)
  }, 180_000)

  it("the MCP configuration it printed connects, and the tools answer with the demo's figures", async () => {
    const start = banner.indexOf("{", banner.indexOf("An MCP client"))
    const end = banner.indexOf("\n    }\n", start) + "\n    }".length
    const config = JSON.parse(banner.slice(start, end)) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>
    }
    const { url, headers, type } = config.mcpServers["fidelis"]!
    expect(type).toBe("http")
    const client = new Client({ name: "quickstart", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
    try {
      const result = await client.callTool({ name: "get_metrics_overview", arguments: {} })
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toMatchObject({ clients: { total: 10 } })
    } finally {
      await client.close()
    }
  })

  it("every metric route of the OpenAPI document shows non-zero figures", async () => {
    const document = (await (await fetch(`${server!.url}/api/v1/public/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>
    }
    const routes = Object.entries(document.paths)
      .filter(
        ([path, ops]) => path.includes("metrics") || Object.values(ops).some((op) => op.tags?.includes("Metrics"))
      )
      .map(([path]) => path)
    expect(routes.toSorted()).toEqual(Object.keys(FIGURES).toSorted())
    for (const route of routes) {
      const res = await fetch(`${server!.url}/api/v1/public${route.replace("{client_id}", clientId)}`, {
        headers: { "X-API-Key": key }
      })
      expect(res.status, route).toBe(200)
      const figures = FIGURES[route]!((await res.json()) as Body)
      const zero = Object.entries(figures).filter(([, value]) => !(typeof value === "number" && value > 0))
      expect(zero, `${route}: ${JSON.stringify(figures)}`).toEqual([])
    }
  })

  it("a second start seeds nothing more and prints no key", async () => {
    const overview = async () => {
      const res = await fetch(`${server!.url}/api/v1/public/metrics/overview`, { headers: { "X-API-Key": key } })
      const { clients, points, coupons, redemptions } = (await res.json()) as Record<string, unknown>
      return { clients, points, coupons, redemptions }
    }
    const before = await overview()
    await server!.stop()
    server = await startServer({ npmStart: true, embedded: true, env })
    expect(server.output()).not.toContain("Demo empresa")
    expect(server.output()).not.toContain("demo tenant created")
    expect(await overview()).toEqual(before)
  }, 180_000)
})
