import { execFileSync, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { stripVTControlCharacters } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientsCsv } from "../packages/cli/test/csv.js"
import { call, createClient, ROOT, useServer, useTenant } from "./support/index.js"

/**
 * `fidelis` as a person sees it: typed into a real terminal (a tmux pane of fixed size) and read
 * back from the screen. tmux is required (CI installs it); only a developer's machine without it
 * skips this file.
 */

const hasTmux = spawnSync("tmux", ["-V"]).status === 0
if (!hasTmux && process.env["CI"]) throw new Error("the terminal test needs tmux: apt-get install -y tmux")

const WIDTH = 200
const HEIGHT = 50
const ESC = "\u001b"

/** A tmux server of our own (its own socket), so parallel runs and a developer's tmux never meet. */
const socket = `fidelis-test-${process.pid}-${randomBytes(4).toString("hex")}`
let dir = ""
const tmux = (...args: string[]) =>
  execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" })

const screen = (options: { colours?: boolean } = {}) =>
  tmux("capture-pane", "-p", ...(options.colours ? ["-e"] : []), "-t", "cli")

const waitFor = async <T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const found = probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const plain = stripVTControlCharacters

/** Resolves once the process has exited, or after `ms`. */
const exited = async (pid: number, ms = 5_000) => {
  const running = () => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  const deadline = Date.now() + ms
  while (running() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

/**
 * Types a command line; it starts on a cleared screen and prints its exit status last, numbered,
 * so an earlier command's status still on the screen is never mistaken for it.
 */
let commands = 0
const type = (line: string) => {
  commands++
  tmux("send-keys", "-t", "cli", `clear; ${line}; echo "exit#${commands}=$?"`, "Enter")
}

const statusLine = () => new RegExp(`^exit#${commands}=(\\d+)$`, "m")

const exitStatus = () => waitFor("the command to finish", () => statusLine().exec(screen())?.[1]).then(Number)

/** Runs a command line to its end and returns the screen's lines above the exit status. */
const run = async (line: string, options: { colours?: boolean } = {}) => {
  type(line)
  const code = await exitStatus()
  const lines = screen(options).split("\n")
  return {
    code,
    lines: lines.slice(
      0,
      lines.findIndex((l) => statusLine().test(plain(l)))
    )
  }
}

/** Everything the pane's programs write, escape sequences and all, from now on (every frame of a bar). */
const recordPane = (file: string) => tmux("pipe-pane", "-t", "cli", "-o", `cat >> ${file}`)
const stopRecording = () => tmux("pipe-pane", "-t", "cli")

const names = ["Ana Souza", "Bruno Lima de Oliveira", "Carla Dias"]

describe.skipIf(!hasTmux)("fidelis in a terminal (tmux)", () => {
  const server = useServer()
  const tenant = useTenant(server)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fidelis-terminal-"))
    for (const nome of names)
      await createClient(server, tenant, { nome, email: `${nome.split(" ")[0]!.toLowerCase()}@example.com` })

    // `fidelis` on the PATH, as an installed CLI would be.
    const bin = join(dir, "bin")
    mkdirSync(bin)
    writeFileSync(
      join(bin, "fidelis"),
      `#!/bin/sh\nexec "${process.execPath}" "${ROOT}packages/cli/bin/fidelis.js" "$@"\n`
    )
    chmodSync(join(bin, "fidelis"), 0o755)
    execFileSync(
      "tmux",
      [
        "-L",
        socket,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "cli",
        "-x",
        String(WIDTH),
        "-y",
        String(HEIGHT),
        "-c",
        dir,
        "bash --norc --noprofile"
      ],
      {
        // The pane's whole environment: nothing of the developer's (FIDELIS_*, NO_COLOR, a config file) leaks in.
        env: {
          PATH: `${bin}:${process.env["PATH"] ?? ""}`,
          HOME: dir,
          TERM: "xterm-256color",
          LANG: "C.UTF-8",
          FIDELIS_CONFIG: join(dir, "config.json")
        }
      }
    )
  })

  afterAll(async () => {
    // Only this test's tmux server, by its own socket.
    const socketPath = spawnSync("tmux", ["-L", socket, "display-message", "-p", "#{socket_path}"], {
      encoding: "utf8"
    }).stdout.trim()
    const shell = Number(
      spawnSync("tmux", ["-L", socket, "display-message", "-p", "-t", "cli", "#{pane_pid}"], { encoding: "utf8" })
        .stdout
    )
    spawnSync("tmux", ["-L", socket, "kill-server"])
    // tmux leaves its socket file behind when killed.
    if (socketPath !== "") rmSync(socketPath, { force: true })
    // The shell, hung up by kill-server, writes its history into HOME (dir) on its way out.
    if (shell > 0) await exited(shell)
    if (dir !== "") rmSync(dir, { recursive: true, force: true })
  })

  it("runs in a pane of the fixed size", () => {
    expect(tmux("display-message", "-p", "-t", "cli", "#{window_width}x#{window_height}").trim()).toBe(
      `${WIDTH}x${HEIGHT}`
    )
  })

  it("asks for the API key without echoing it, then works from the profile alone", async () => {
    expect(await run(`fidelis config set url ${server.url}`)).toMatchObject({ code: 0 })

    type("fidelis config set api_key")
    await waitFor("the key prompt", () => (/^api_key:\s*$/m.test(screen()) ? true : undefined))
    tmux("send-keys", "-t", "cli", "-l", tenant.key)
    tmux("send-keys", "-t", "cli", "Enter")
    expect(await exitStatus()).toBe(0)
    expect(screen()).toContain(`api_key set in profile "default" (${join(dir, "config.json")})`)

    const shown = await run("fidelis config show")
    expect(shown.lines.join("\n")).not.toContain(tenant.key.slice(4))
    expect(shown.lines).toContain(`api_key  fid_…${tenant.key.slice(-4)}`)
    // The key was typed into this very pane, and nothing it ever drew holds it.
    expect(tmux("capture-pane", "-p", "-S", "-", "-t", "cli")).not.toContain(tenant.key.slice(4))
  }, 120_000)

  it("prints the clients as an aligned table with a bold header, and no colour into a pipe", async () => {
    const { code, lines } = await run("fidelis clients list", { colours: true })
    expect(code).toBe(0)
    const [header = "", ...rest] = lines
    expect(header.startsWith(`${ESC}[1mid `)).toBe(true)
    const plainHeader = plain(header)
    expect(plainHeader).toMatch(/^id {2,}nome {2,}email {2,}telefone {2,}cpf {2,}pontos {2,}created_at {2,}updated_at$/)
    const rows = rest.map(plain).slice(0, names.length)
    expect(rest[names.length]).toBe("page 1/1 · 3 total")
    // Cutting every row where the header's columns start gives back each field whole.
    const starts = [...plainHeader.matchAll(/\S+/g)].map((m) => ({ column: m[0], at: m.index }))
    const cells = rows.map((row) =>
      Object.fromEntries(starts.map(({ column, at }, i) => [column, row.slice(at, starts[i + 1]?.at ?? WIDTH).trim()]))
    )
    expect(cells.map((c) => [c["nome"], c["email"], c["pontos"]])).toEqual(
      names.toReversed().map((nome) => [nome, `${nome.split(" ")[0]!.toLowerCase()}@example.com`, "0"])
    )
    for (const cell of cells) expect(cell["id"]).toMatch(/^[0-9a-f-]{36}$/)
    for (const line of [...rows, ...lines]) expect(line.length).toBeLessThanOrEqual(WIDTH)

    const piped = await run("fidelis clients list | cat", { colours: true })
    expect(piped.lines.join("\n")).not.toContain(ESC)
    expect(piped.lines.slice(0, 4)).toEqual([plainHeader, ...rows])

    const failed = await run("fidelis clients get 00000000-0000-4000-8000-000000000000", { colours: true })
    expect(failed.code).toBe(4)
    const [errorLine = ""] = failed.lines
    // Red, however tmux spells it: ESC[31m or ESC[1;31m before the word.
    expect(
      errorLine
        .slice(0, errorLine.indexOf("error:"))
        .split(ESC)
        .some((sgr) => /^\[(?:\d+;)*31m$/.test(sgr))
    ).toBe(true)
    expect(plain(errorLine)).toBe("error: Client 00000000-0000-4000-8000-000000000000 not found (404)")
  }, 120_000)

  it("draws the import's progress bar frame by frame and leaves it full above the summary", async () => {
    writeFileSync(join(dir, "clientes.csv"), clientsCsv(3000, new Set(), 21))
    const frames = join(dir, "import.frames")
    recordPane(frames)
    const { code, lines } = await run("fidelis clients import clientes.csv")
    stopRecording()

    expect(code).toBe(0)
    expect(lines).toEqual([
      `importing [${"#".repeat(40)}] 100% | 3000/3000 rows | 3000 created, 0 skipped, 0 invalid`,
      "imported clientes.csv: 3000 created, 0 skipped (already a client), 0 invalid"
    ])
    // The bar was redrawn in place as batches of 500 landed, never going back.
    const drawn = [...readFileSync(frames, "utf8").matchAll(/\| (\d+)\/3000 rows/g)].map((m) => Number(m[1]))
    expect(drawn[0]).toBe(0)
    expect(drawn.at(-1)).toBe(3000)
    expect(drawn).toEqual(drawn.toSorted((a, b) => a - b))
    expect(drawn.some((value) => value > 0 && value < 3000)).toBe(true)
    expect(drawn.every((value) => value % 500 === 0)).toBe(true)
  }, 120_000)

  it("stops an import on Ctrl-C with exit 130, between batches, saying how to resume", async () => {
    const before = (await call(server, "/api/v1/public/clients?per_page=1", { key: tenant.key })).body.total as number
    writeFileSync(join(dir, "grande.csv"), clientsCsv(10_000, new Set(), 22))
    const frames = join(dir, "interrupted.frames")
    recordPane(frames)
    type("fidelis clients import grande.csv")
    await waitFor("a batch to land", () => {
      // tmux opens the recording asynchronously: until it does, nothing has been drawn.
      const drawn = existsSync(frames) ? readFileSync(frames, "utf8") : ""
      const done = [...drawn.matchAll(/\| (\d+)\/10000 rows/g)].map((m) => Number(m[1]))
      return done.some((value) => value >= 500) ? true : undefined
    })
    tmux("send-keys", "-t", "cli", "C-c")
    expect(await exitStatus()).toBe(130)
    stopRecording()

    const error = /^error: interrupted; rows before line (\d+) were processed, run again to resume$/m.exec(screen())
    expect(error).not.toBeNull()
    const processed = Number(error![1]) - 2
    const created =
      ((await call(server, "/api/v1/public/clients?per_page=1", { key: tenant.key })).body.total as number) - before
    // Whole batches only (one transaction each): those before the line, perhaps the one in flight too.
    expect(created % 500).toBe(0)
    expect(created).toBeGreaterThanOrEqual(processed)
    expect(created).toBeLessThanOrEqual(processed + 500)
    expect(created).toBeLessThan(10_000)
  }, 120_000)

  it("asks before revoking a key; Ctrl-C at the question exits 130 and revokes nothing", async () => {
    const key = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, {
      key: server.adminKey,
      body: { name: "temporary", scope: "empresa" }
    })
    const revoke = `FIDELIS_API_KEY=${server.adminKey} fidelis --url ${server.url} keys revoke ${key.body.id}`
    // As the screen shows it: capture-pane drops trailing blanks.
    const question = "Revoke an API key: this cannot be undone. Continue? [y/N]"
    const revokedAt = async () =>
      (
        (await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}/api-keys`, { key: server.adminKey }))
          .body as Array<{ id: string; revoked_at: string | null }>
      ).find((k) => k.id === key.body.id)?.revoked_at

    type(revoke)
    await waitFor("the question", () => (screen().includes(question) ? true : undefined))
    tmux("send-keys", "-t", "cli", "C-c")
    expect(await exitStatus()).toBe(130)
    expect(screen()).toContain(`${question}\nerror: interrupted\n`)
    expect(await revokedAt()).toBeNull()

    type(revoke)
    await waitFor("the question", () => (screen().includes(question) ? true : undefined))
    tmux("send-keys", "-t", "cli", "y", "Enter")
    expect(await exitStatus()).toBe(0)
    expect(screen()).toMatch(/^revoked_at +\d{4}-/m)
    expect(await revokedAt()).not.toBeNull()
  }, 120_000)
})
