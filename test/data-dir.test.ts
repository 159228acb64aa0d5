import { randomBytes } from "node:crypto"
import { existsSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fidelis, json } from "../packages/cli/test/bin.js"
import { ROOT, startServer, type TestServer } from "./support/index.js"

// One data directory: a relative FIDELIS_DATA_DIR (like the default `data`) means the same folder
// under the repository root whichever folder the server or the CLI starts from. Kept under the
// ignored test/.data, never the developer's own data/.
const relative = join("test", ".data", `data-dir-${randomBytes(4).toString("hex")}`, "data")
const absolute = join(ROOT, relative)
const env = { FIDELIS_DATA_DIR: relative }

/** Folders to run the CLI from: the root, the server's package (where npm start runs), one without a package.json. */
const FOLDERS = [ROOT, join(ROOT, "apps", "server"), join(ROOT, "docs")]

afterAll(() => rmSync(join(ROOT, "test", ".data", relative.split("/")[2]!), { recursive: true, force: true }))

describe("one data directory", () => {
  let server: TestServer | undefined

  beforeAll(async () => {
    server = await startServer({ npmStart: true, embedded: true, env })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("the server started as npm start does logs the absolute data path under the repository root", async () => {
    const listening = server!
      .output()
      .split("\n")
      .find((line) => line.includes('"message":"listening"'))
    expect(JSON.parse(listening!)).toMatchObject({ database: "embedded", data_dir: absolute })
    expect(existsSync(join(absolute, "fidelis.lock"))).toBe(true)
  })

  it("the CLI in local mode says to use --url with the server's URL, from any folder, and opens nothing", async () => {
    const before = readdirSync(absolute).toSorted()
    for (const cwd of FOLDERS) {
      const outcome = await fidelis(
        ["empresas", "get", "00000000-0000-4000-8000-000000000000"],
        env,
        45_000,
        undefined,
        cwd
      )
      expect(outcome.code, `${cwd}: ${outcome.stderr}`).toBe(2)
      expect(outcome.stderr).toContain(`Use --url ${server!.url}`)
      expect(outcome.stderr).toContain(absolute)
      expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1)
    }
    // No second database: nothing created relative to the folders it ran from.
    for (const cwd of FOLDERS.slice(1)) expect(existsSync(join(cwd, relative)), cwd).toBe(false)
    expect(readdirSync(absolute).toSorted()).toEqual(before)
  })

  it("once the server stops, the CLI from a subfolder opens the server's data", async () => {
    const created = json<{ id: string }>(
      await fidelis(
        ["--url", server!.url, "empresas", "create", "--name", "Padaria", "--id-name", "padaria", "--json"],
        { FIDELIS_API_KEY: server!.adminKey },
        45_000,
        undefined,
        FOLDERS[1]
      )
    )
    await server!.stop()
    server = undefined
    const found = json<{ id: string }>(
      await fidelis(["empresas", "get", created.id, "--json"], env, 60_000, undefined, FOLDERS[1])
    )
    expect(found.id).toBe(created.id)
    expect(existsSync(join(FOLDERS[1]!, relative))).toBe(false)
  }, 180_000)
})
