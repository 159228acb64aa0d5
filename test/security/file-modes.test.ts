import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { uniqueEmail } from "../support/accounts.js"
import { call } from "../support/http.js"
import { startServer, type StartOptions, type TestServer } from "../support/server.js"

/**
 * Under the usual umask 022 the embedded database's files were 0666 in 0755 folders (its WAL holds
 * the end-user JWT signing key and the email link key), `global/pg_control` was writable by anyone,
 * and without SMTP the verification and reset emails, tokens in them, went as 0644 .eml files to a
 * 0755 folder under /tmp that stayed after the server stopped. The data directory and the mail
 * folder are now their owner's alone, and the temporary one goes with the process.
 */

const root = mkdtempSync(join(tmpdir(), "fidelis-file-modes-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Starts the server as a shell with the common umask 022 would: the spawned process inherits it. */
const startUnderUmask022 = async (options: StartOptions) => {
  const previous = process.umask(0o022)
  try {
    return await startServer({ embedded: true, ...options })
  } finally {
    process.umask(previous)
  }
}

/** Every path under `dir` (itself included) that its group or others may read, write or enter. */
const notPrivate = (dir: string): string[] => {
  const stats = lstatSync(dir)
  const own = (stats.mode & 0o077) === 0 ? [] : [`${(stats.mode & 0o7777).toString(8)} ${dir}`]
  if (!stats.isDirectory()) return own
  return [...own, ...readdirSync(dir).flatMap((name) => notPrivate(join(dir, name)))]
}

const countFiles = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (count, entry) => count + (entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1),
    0
  )

/** Registers an account (its verification email is queued) and waits for the .eml file in `folder`. */
const mailOneMessage = async (server: TestServer, folder: string) => {
  const res = await call(server, "/api/v1/auth/register", {
    body: { email: uniqueEmail(), password: "segredo123", nome: "Ana" }
  })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  const deadline = Date.now() + 20_000
  for (;;) {
    const written = existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".eml")) : []
    if (written.length > 0) return join(folder, written[0]!)
    if (Date.now() > deadline) throw new Error(`no .eml file in ${folder}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The folder the start-up log names for mail: `files in <folder>`. */
const mailFolderOf = (server: TestServer) => {
  const listening = server
    .output()
    .split("\n")
    .find((line) => line.includes('"message":"listening"'))
  const target = String((JSON.parse(listening!) as { mail?: unknown }).mail)
  expect(target).toMatch(/^files in /)
  return target.slice("files in ".length)
}

const modeOf = (path: string) => (lstatSync(path).mode & 0o7777).toString(8)

describe("a fresh data directory, under umask 022", () => {
  it("is 0700 with 0600 files, the files Postgres adds while running and the mail folder included", async () => {
    const dataDir = join(root, "data")
    const server = await startUnderUmask022({ env: { FIDELIS_DATA_DIR: dataDir, FIDELIS_PASSWORD_COST: "10" } })
    try {
      const eml = await mailOneMessage(server, join(dataDir, "mail"))
      expect(modeOf(dataDir)).toBe("700")
      expect(modeOf(join(dataDir, "pg", "global", "pg_control"))).toBe("600")
      expect(modeOf(join(dataDir, "mail"))).toBe("700")
      expect(modeOf(eml)).toBe("600")
      // The migrations' tables are files Postgres created after the database opened.
      expect(countFiles(dataDir)).toBeGreaterThan(100)
      expect(notPrivate(dataDir)).toEqual([])
    } finally {
      await server.stop()
    }
    expect(notPrivate(dataDir)).toEqual([])
  })
})

describe("the temporary mail folder of an in-memory database, under umask 022", () => {
  it("is 0700 with 0600 files, and is gone once the server has stopped", async () => {
    const server = await startUnderUmask022({ env: { FIDELIS_DATA_DIR: "memory://", FIDELIS_PASSWORD_COST: "10" } })
    let folder: string | undefined
    try {
      folder = mailFolderOf(server)
      const eml = await mailOneMessage(server, folder)
      expect(modeOf(folder)).toBe("700")
      expect(modeOf(eml)).toBe("600")
    } finally {
      const exit = await server.stop()
      expect(exit).toEqual({ code: 0, signal: null })
    }
    expect(existsSync(folder)).toBe(false)
  })
})
