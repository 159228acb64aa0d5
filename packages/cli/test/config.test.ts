import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fidelis, type Outcome } from "./bin.js"

const dir = mkdtempSync(join(tmpdir(), "fidelis-config-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const KEY = "fid_AbCdEfGhIjKlMnOpQrStUvWxYz012345"

/** A fresh config file path per test, in a directory that does not exist yet. */
let files = 0
const freshConfig = () => join(dir, `home-${files++}`, "fidelis", "config.json")

/** Failures are exactly one line on stderr, no stack trace. */
const failure = (outcome: Outcome) => {
  expect(outcome.stdout).toBe("")
  const lines = outcome.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(1)
  return { code: outcome.code, line: lines[0]! }
}

describe("fidelis config", () => {
  it("keeps profiles in an owner-only file and never prints a key in full", async () => {
    const file = freshConfig()
    const config = (args: string[], input?: string) =>
      fidelis(["config", ...args], { FIDELIS_CONFIG: file }, 45_000, input)

    expect(await config(["set", "url", "https://fidelis.example.com"])).toMatchObject({
      code: 0,
      stderr: `url set in profile "default" (${file})\n`
    })
    // The key from stdin, so it stays out of the shell history.
    expect((await config(["set", "api_key"], `${KEY}\n`)).code).toBe(0)
    expect((await config(["set", "--profile", "loja", "empresa", "padaria-sol"])).code).toBe(0)

    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700)
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      default_profile: "default",
      profiles: { default: { url: "https://fidelis.example.com", api_key: KEY }, loja: { empresa: "padaria-sol" } }
    })

    const show = await config(["show"])
    expect(show).toMatchObject({ code: 0, stderr: "" })
    expect(show.stdout).toBe(
      [
        "profile  default",
        `file     ${file}`,
        "url      https://fidelis.example.com",
        "api_key  fid_…2345",
        "empresa  -",
        ""
      ].join("\n")
    )
    const asJson = await config(["show", "--json"])
    expect(JSON.parse(asJson.stdout)).toEqual({
      profile: "default",
      file,
      url: "https://fidelis.example.com",
      api_key: "fid_…2345",
      empresa: null
    })

    const list = await config(["list"])
    expect(list.stdout.split("\n")[0]).toMatch(/^profile\s+default\s+url\s+api_key\s+empresa$/)
    expect(list.stdout).toMatch(/^loja\s+false\s+-\s+-\s+padaria-sol$/m)
    const listJson = await config(["list", "--json"])
    expect((await config(["list", "--quiet"])).stdout).toBe("default\nloja\n")
    for (const outcome of [show, asJson, list, listJson]) expect(outcome.stdout).not.toContain(KEY.slice(4, 20))

    expect(await config(["use", "loja"])).toMatchObject({ code: 0, stderr: "default profile: loja\n" })
    expect((await config(["show", "--json"])).stdout).toContain('"profile": "loja"')
    expect(JSON.parse((await config(["show", "--profile", "default", "--json"])).stdout).url).toBe(
      "https://fidelis.example.com"
    )
    expect(
      (await fidelis(["config", "show", "--json"], { FIDELIS_CONFIG: file, FIDELIS_PROFILE: "default" })).stdout
    ).toContain('"profile": "default"')

    expect((await config(["unset", "--profile", "default", "api_key"])).code).toBe(0)
    expect(JSON.parse(readFileSync(file, "utf8")).profiles.default).toEqual({ url: "https://fidelis.example.com" })
  }, 120_000)

  it("lives under XDG_CONFIG_HOME unless FIDELIS_CONFIG names the file", async () => {
    const xdg = join(dir, "xdg")
    const set = await fidelis(["config", "set", "empresa", "padaria-sol"], { FIDELIS_CONFIG: "", XDG_CONFIG_HOME: xdg })
    expect(set.code).toBe(0)
    expect(JSON.parse(readFileSync(join(xdg, "fidelis", "config.json"), "utf8")).profiles.default).toEqual({
      empresa: "padaria-sol"
    })
  })

  it("refuses a bad file, an unknown profile or key and an empty value in one line each", async () => {
    const file = freshConfig()
    mkdirSync(join(file, ".."), { recursive: true })
    const env = { FIDELIS_CONFIG: file }

    writeFileSync(
      file,
      JSON.stringify({ default_profile: "prod", profiles: { prod: { url: "http://127.0.0.1:1", apikey: KEY } } })
    )
    expect(failure(await fidelis(["clients", "list"], env))).toEqual({
      code: 8,
      line: `error: ${file}: profile "prod" has unknown key "apikey" (known: url, api_key, empresa)`
    })

    writeFileSync(file, "{ not json")
    const invalid = failure(await fidelis(["config", "show"], env))
    expect(invalid.code).toBe(8)
    expect(invalid.line).toMatch(new RegExp(`^error: ${file} is not valid JSON: `))

    writeFileSync(file, JSON.stringify({ default_profile: "prod", profiles: { prod: { url: "http://127.0.0.1:1" } } }))
    expect(failure(await fidelis(["--profile", "staging", "clients", "list"], env))).toEqual({
      code: 8,
      line:
        'error: unknown profile "staging": known: prod; ' +
        "create it with: fidelis config set --profile staging url <url>"
    })
    expect(failure(await fidelis(["clients", "list"], { ...env, FIDELIS_PROFILE: "nope" })).code).toBe(8)
    expect(failure(await fidelis(["config", "use", "nope"], env)).code).toBe(8)

    expect(failure(await fidelis(["config", "set", "token", "x"], env))).toEqual({
      code: 2,
      line: 'error: unknown key "token": use one of url, api_key, empresa'
    })
    expect(failure(await fidelis(["config", "set", "api_key"], env, 45_000, "\n"))).toEqual({
      code: 2,
      line: "error: api_key cannot be empty"
    })
    expect(failure(await fidelis(["config", "set", "url", "fidelis.example.com"], env)).code).toBe(2)

    // A key without a server would be a silent switch to the local database.
    writeFileSync(file, JSON.stringify({ default_profile: "prod", profiles: { prod: { api_key: KEY } } }))
    expect(failure(await fidelis(["clients", "list"], env))).toEqual({
      code: 8,
      line: 'error: profile "prod" has an api_key but no url; set one with: fidelis config set --profile prod url <url>'
    })
  }, 120_000)

  it("gives local mode the profile's empresa, below --empresa and FIDELIS_EMPRESA", async () => {
    const file = freshConfig()
    const env = { FIDELIS_CONFIG: file, FIDELIS_DATA_DIR: join(dir, "data") }
    const run = (...args: string[]) => fidelis(args, env)
    expect((await run("empresas", "create", "--name", "Padaria Sol", "--id-name", "padaria-sol", "--quiet")).code).toBe(
      0
    )
    expect((await run("config", "set", "empresa", "padaria-sol")).code).toBe(0)

    const created = await run("clients", "create", "--nome", "Ana Souza", "--quiet")
    expect(created).toMatchObject({ code: 0, stderr: "" })
    expect((await run("clients", "list", "--quiet")).stdout).toBe(created.stdout)

    const flag = await run("clients", "list", "--empresa", "outra-loja")
    expect(flag.code).toBe(4)
    expect(flag.stderr).toContain("outra-loja")
    const variable = await fidelis(["clients", "list"], { ...env, FIDELIS_EMPRESA: "outra-loja" })
    expect(variable.code).toBe(4)
  }, 120_000)

  it("colours only where asked: FORCE_COLOR on a pipe, never in JSON or ids", async () => {
    const forced = { FIDELIS_CONFIG: freshConfig(), FORCE_COLOR: "1" }
    const error = await fidelis(["config", "show"], forced)
    expect(error.stderr.startsWith("\u001b[1;31merror:\u001b[0m no profile selected")).toBe(true)
    expect((await fidelis(["config", "set", "url", "https://fidelis.example.com"], forced)).code).toBe(0)
    const table = await fidelis(["config", "list"], forced)
    expect(table.stdout.startsWith("\u001b[1mprofile  default  url")).toBe(true)
    expect(table.stdout.split("\n")[1]).toBe("default  true     https://fidelis.example.com  -        -")
    expect((await fidelis(["config", "list", "--json"], forced)).stdout).not.toContain("\u001b")

    const off = await fidelis(["config", "list"], { ...forced, FORCE_COLOR: "0" })
    expect(off.stdout).not.toContain("\u001b")
    const noColor = await fidelis(["config", "show", "--profile", "x"], {
      FIDELIS_CONFIG: forced.FIDELIS_CONFIG,
      NO_COLOR: "1"
    })
    expect(noColor.stderr).toMatch(/^error: unknown profile "x"/)
  }, 120_000)
})
