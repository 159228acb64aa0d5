import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { behindPooler, configFromEnv, directDatabaseUrl, projectRoot, resolveDataDir } from "../src/config.js"

/** The repository root, found here from this file's place, not by the code under test. */
const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)))

describe("the data directory", () => {
  const cwd = process.cwd()
  afterEach(() => process.chdir(cwd))

  it("defaults to <repository root>/data, whichever folder the process runs from", () => {
    for (const folder of [ROOT, join(ROOT, "apps", "server"), join(ROOT, "packages", "cli", "src"), tmpdir()]) {
      process.chdir(folder)
      expect(configFromEnv({}).dataDir, folder).toBe(join(ROOT, "data"))
      expect(configFromEnv({ FIDELIS_DATA_DIR: "test/.data/x" }).dataDir, folder).toBe(join(ROOT, "test/.data/x"))
    }
  })

  it("keeps an absolute path and memory:// as they are", () => {
    expect(configFromEnv({ FIDELIS_DATA_DIR: "/var/lib/fidelis" }).dataDir).toBe("/var/lib/fidelis")
    expect(configFromEnv({ FIDELIS_DATA_DIR: "memory://" }).dataDir).toBe("memory://")
  })

  it("is the working directory's outside a checkout: installed under node_modules, or no workspace root above", () => {
    const scratch = mkdtempSync(join(tmpdir(), "fidelis-root-"))
    try {
      const checkout = join(scratch, "checkout")
      mkdirSync(join(checkout, "packages", "core", "src"), { recursive: true })
      writeFileSync(join(checkout, "package.json"), JSON.stringify({ workspaces: ["packages/*"] }))
      writeFileSync(join(checkout, "packages", "core", "package.json"), JSON.stringify({ name: "@fidelis/core" }))
      const inCheckout = join(checkout, "packages", "core", "src", "config.ts")
      expect(projectRoot(inCheckout, "/elsewhere")).toBe(checkout)

      const installed = join(checkout, "node_modules", "@fidelis", "core", "src", "config.ts")
      expect(projectRoot(installed, "/srv/app")).toBe("/srv/app")
      expect(projectRoot(join(scratch, "loose", "config.js"), "/srv/app")).toBe("/srv/app")
      expect(resolveDataDir("data", "/srv/app")).toBe("/srv/app/data")
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})

describe("the direct database URL (behind a transaction pooler)", () => {
  const pooler = "postgres://app@pgbouncer:6432/fidelis"
  const direct = "postgres://app@db:5432/fidelis"

  it("is DATABASE_URL itself unless DATABASE_DIRECT_URL is set; only a different one means a pooler", () => {
    const plain = configFromEnv({ DATABASE_URL: direct })
    expect(directDatabaseUrl(plain)).toBe(direct)
    expect(behindPooler(plain)).toBe(false)
    const pooled = configFromEnv({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct })
    expect(directDatabaseUrl(pooled)).toBe(direct)
    expect(behindPooler(pooled)).toBe(true)
    expect(behindPooler(configFromEnv({ DATABASE_URL: direct, DATABASE_DIRECT_URL: direct }))).toBe(false)
    expect(behindPooler(configFromEnv({}))).toBe(false)
  })

  it("refuses DATABASE_DIRECT_URL without DATABASE_URL, or one that is not postgres://", () => {
    expect(() => configFromEnv({ DATABASE_DIRECT_URL: direct })).toThrow(/DATABASE_DIRECT_URL: set only together/)
    expect(() => configFromEnv({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: "mysql://db/x" })).toThrow(
      /DATABASE_DIRECT_URL must be a postgres:\/\/ URL/
    )
  })
})

/** Why the configuration refuses `key` as the admin key, or undefined when it takes it. */
const refusal = (key: string) => {
  try {
    configFromEnv({ FIDELIS_ADMIN_KEY: key })
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

describe("FIDELIS_ADMIN_KEY", () => {
  it("takes random keys of 128 bits and more, bare or after a readable prefix", () => {
    for (let i = 0; i < 5; i++) {
      for (const key of [
        randomBytes(16).toString("hex"),
        randomBytes(32).toString("hex"),
        randomBytes(17).toString("base64url"),
        `fidelis-admin-${randomBytes(16).toString("hex")}`
      ]) {
        expect(refusal(key), key).toBeUndefined()
      }
    }
  })

  it("refuses a short, worded, repeated or sequential key at start, saying how to make one", () => {
    for (const key of [
      randomBytes(12).toString("hex"),
      "test-admin-key-0123456789",
      "a".repeat(64),
      "correcthorsebatterystaplecorrecthorse",
      "Password123!Password123!Password123!",
      "abcdefghijklmnopqrstuvwxyz0123456789"
    ]) {
      const message = refusal(key)
      expect(message, key).toMatch(/^Invalid configuration: FIDELIS_ADMIN_KEY: too weak for an admin key/)
      expect(message).toContain("openssl rand -hex 32")
      expect(message).not.toContain(key)
    }
  })
})
