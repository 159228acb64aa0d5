import { openPglite } from "@fidelis/db"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openWith } from "../../packages/core/src/secrets.js"
import { bearer, registerAccount } from "../support/accounts.js"
import { call } from "../support/http.js"
import { startServer } from "../support/server.js"

/**
 * The end-user JWT signing key and the email link key, which the server generates and keeps in its
 * database, were stored in clear even with FIDELIS_SECRET_KEY set: anyone who read the data
 * directory (its WAL) or a database dump could sign access tokens for any account. With the key
 * they are sealed; a database from before the key gets them sealed on the next start.
 */

const root = mkdtempSync(join(tmpdir(), "fidelis-secrets-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const secretKey = randomBytes(32)
const withKey = { FIDELIS_SECRET_KEY: secretKey.toString("base64") }
const cheap = { FIDELIS_PASSWORD_COST: "10" }

interface Kept {
  readonly signingKey: string
  readonly emailKey: string
}

/** The two server secrets as stored, read from the data directory once no server holds it. */
const keptIn = async (dataDir: string): Promise<Kept> => {
  const db = await openPglite(join(dataDir, "pg"))
  try {
    const signing = await db.query<{ secret: string }>("SELECT secret FROM signing_keys WHERE kid = 'initial'")
    const email = await db.query<{ value: string }>("SELECT value FROM server_secrets WHERE name = 'email_token_key'")
    return { signingKey: signing.rows[0]!.secret, emailKey: email.rows[0]!.value }
  } finally {
    await db.close()
  }
}

const opened = (kept: Kept): Kept => ({
  signingKey: openWith(secretKey, kept.signingKey, "signing_keys:initial") ?? "(does not open)",
  emailKey: openWith(secretKey, kept.emailKey, "server_secrets:email_token_key") ?? "(does not open)"
})

/** Whether any file under `dir` (the WAL included) holds `text`. */
const foundIn = (dir: string, text: string): boolean =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).some((name) => {
    const path = join(dir, name)
    return statSync(path).isFile() && readFileSync(path).includes(text)
  })

describe("server secrets at rest", () => {
  it("with FIDELIS_SECRET_KEY from the first start, are sealed, in clear in no file of the data dir", async () => {
    const dataDir = join(root, "sealed")
    const server = await startServer({ embedded: true, env: { FIDELIS_DATA_DIR: dataDir, ...withKey, ...cheap } })
    try {
      const session = await registerAccount(server)
      expect((await call(server, "/api/v1/users/me", { headers: bearer(session.access_token) })).status).toBe(200)
    } finally {
      await server.stop()
    }
    const kept = await keptIn(dataDir)
    const secrets = opened(kept)
    expect(secrets.signingKey).toMatch(/^[\w-]{43}$/)
    expect(secrets.emailKey).toMatch(/^[\w-]{43}$/)
    expect(foundIn(dataDir, secrets.signingKey)).toBe(false)
    expect(foundIn(dataDir, secrets.emailKey)).toBe(false)
  })

  it("kept in clear before the key was set, are sealed at the next start with it; old tokens work", async () => {
    const dataDir = join(root, "upgraded")
    const env = { FIDELIS_DATA_DIR: dataDir, ...cheap }
    const before = await startServer({ embedded: true, env })
    let token: string
    try {
      token = (await registerAccount(before)).access_token
    } finally {
      await before.stop()
    }
    const clear = await keptIn(dataDir)
    expect(clear.signingKey).toMatch(/^[\w-]{43}$/)

    const after = await startServer({ embedded: true, env: { ...env, ...withKey } })
    try {
      expect((await call(after, "/api/v1/users/me", { headers: bearer(token) })).status).toBe(200)
    } finally {
      await after.stop()
    }
    const sealed = await keptIn(dataDir)
    expect(sealed.signingKey).not.toBe(clear.signingKey)
    expect(opened(sealed)).toEqual(clear)

    // Sealed, the secrets need the key: without it the server says so rather than make new ones.
    await expect(startServer({ embedded: true, env })).rejects.toThrow(/sealed with a FIDELIS_SECRET_KEY/)
  })
})
