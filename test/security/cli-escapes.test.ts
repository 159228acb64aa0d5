import { describe, expect, it } from "vitest"
import { fidelis, json } from "../../packages/cli/test/bin.js"
import { call, createTenant, useServer, type Tenant } from "../support/index.js"

// Review item 4: an anonymous survey respondent named themselves with terminal escapes, which set the
// support agent's window title and cleared the screen in `fidelis quests responses`; `clients list`
// passed a carriage return and OSC 8 links. Human output now shows every control character inert;
// `--json` still parses to exactly what the server holds.

const server = useServer()

const ESC = "\u001b"
const BEL = "\u0007"
/** Retitles the window, clears the screen, hides a link, returns the cursor, and an 8-bit CSI (C1). */
const LINK = `${ESC}]8;;https://evil.example${BEL}clique${ESC}]8;;${BEL}`
const HOSTILE = `Ana${ESC}]0;pwned${BEL}${ESC}[2J${LINK}\rSuporte\u009b2J`

/** What the terminal receives may hold line breaks between rows, and no other control character. */
const expectInert = (stdout: string) => {
  expect(stdout.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u)
  expect(stdout).toContain(String.raw`Ana\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x07clique`)
  expect(stdout).toContain(String.raw`\x0dSuporte\x9b2J`)
}

/** The CLI against the server with the tenant's key, given the recommended way (no flag to warn about). */
const cli = (tenant: Tenant, ...args: string[]) =>
  fidelis(["--url", server.url, ...args], { FIDELIS_API_KEY: tenant.key })

describe("hostile names in the CLI's output", () => {
  it("clients list prints them inert; --json keeps them exact", async () => {
    const tenant = await createTenant(server)
    const created = await call(server, "/api/v1/public/clients", { key: tenant.key, body: { nome: HOSTILE } })
    expect(created.status).toBe(201)

    const table = await cli(tenant, "clients", "list")
    expect(table.code).toBe(0)
    expectInert(table.stdout)

    const page = json<{ data: Array<{ nome: string }> }>(await cli(tenant, "clients", "list", "--json"))
    expect(page.data.map((client) => client.nome)).toEqual([HOSTILE])
  }, 120_000)

  it("quests responses prints an anonymous respondent's name and comment inert; --json keeps them exact", async () => {
    const tenant = await createTenant(server)
    const ref = tenant.empresa.id_name
    const active = await call(server, `/api/v1/public/quests/${ref}/active`)
    const questId = active.body.quest_id as string
    // No key: what anyone with the table's QR code can send.
    const submitted = await call(server, `/api/v1/public/quests/${ref}/${questId}/responses`, {
      body: { response: { csat: 1, nps: 0, comment: HOSTILE } }
    })
    expect(submitted.status).toBe(201)
    const contact = await call(server, `/api/v1/public/quests/${ref}/${submitted.body.response_id}/contact`, {
      method: "PATCH",
      body: { client_name: HOSTILE }
    })
    expect(contact.status).toBe(200)

    const table = await cli(tenant, "quests", "responses", questId)
    expect(table.code).toBe(0)
    expectInert(table.stdout)

    const page = json<{ data: Array<{ client_name: string; answers: { comment: string } }> }>(
      await cli(tenant, "quests", "responses", questId, "--json")
    )
    expect(page.data.map((response) => [response.client_name, response.answers.comment])).toEqual([[HOSTILE, HOSTILE]])
  }, 120_000)
})
