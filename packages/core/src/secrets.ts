import { Effect, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { Config } from "./config.js"
import { Conflict } from "./errors.js"

/** The one sealed format: version, key id, IV and ciphertext with its tag (base64url), dot-separated. */
const VERSION = "v1"
const IV_BYTES = 12
const TAG_BYTES = 16

/** Names a key without revealing it, so a value sealed under another key is told apart from a damaged one. */
const keyIdOf = (key: Buffer) =>
  createHash("sha256").update("fidelis-secret-key-id").update(key).digest("hex").slice(0, 8)

/**
 * Seals a secret with AES-256-GCM. `context` (e.g. the table and row the value belongs to) is bound
 * as associated data: a sealed value copied to another row does not open there.
 */
export const sealWith = (key: Buffer, plain: string, context: string): string => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(context, "utf8"))
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()])
  return [VERSION, keyIdOf(key), iv.toString("base64url"), body.toString("base64url")].join(".")
}

/** The secret a sealed value holds; undefined when another key or context sealed it, or it was altered. */
export const openWith = (key: Buffer, sealed: string, context: string): string | undefined => {
  const [version, keyId, iv, body] = sealed.split(".")
  if (version !== VERSION || keyId !== keyIdOf(key) || iv === undefined || body === undefined) return undefined
  const bytes = Buffer.from(body, "base64url")
  if (bytes.length < TAG_BYTES) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
      .setAAD(Buffer.from(context, "utf8"))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8"
    )
  } catch {
    return undefined
  }
}

/**
 * Secrets kept at rest (a store's NFC-e CSC, and any later one), sealed with FIDELIS_SECRET_KEY.
 * Without the key nothing is sealed and a secret is refused, never stored in clear
 * (docs/decisions.md, "NFC-e: pending offline receipts").
 */
export class Secrets extends Effect.Service<Secrets>()("core/Secrets", {
  accessors: true,
  effect: Effect.map(Config, ({ secretKey }) => {
    const key = secretKey === undefined ? undefined : Buffer.from(Redacted.value(secretKey), "base64")
    return {
      seal: (plain: string, context: string) =>
        key === undefined
          ? Effect.fail(
              new Conflict({
                code: "SECRET_KEY_NOT_SET",
                message:
                  "This server stores no secrets: its operator has not set FIDELIS_SECRET_KEY, which encrypts them"
              })
            )
          : Effect.sync(() => sealWith(key, plain, context)),
      /** Undefined without the key, or when the value was sealed under another one. */
      open: (sealed: string, context: string) =>
        Effect.sync(() => (key === undefined ? undefined : openWith(key, sealed, context)))
    }
  })
}) {}
