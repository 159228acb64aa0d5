import { SqlClient } from "@effect/sql"
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

/**
 * Whether a stored value is in the sealed format. The secrets the server generates are base64url,
 * which has no dot: one in clear is never taken for a sealed one.
 */
const isSealed = (stored: string) => stored.startsWith(`${VERSION}.`) && stored.split(".").length === 4

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

/** A text column of secrets the server generates for itself, and the column naming each row. */
export interface SecretColumn {
  readonly table: string
  readonly id: string
  readonly value: string
}

/**
 * Secrets kept at rest, sealed with FIDELIS_SECRET_KEY. A store's secret (its NFC-e CSC) is refused
 * without the key, never stored in clear (docs/decisions.md, "NFC-e: pending offline receipts").
 * A secret the server generates for itself (`column`: the end-user JWT signing keys, the email
 * link key) is kept in clear without one, since the server cannot run without it (docs/decisions.md,
 * "Private files and sealed server secrets").
 */
export class Secrets extends Effect.Service<Secrets>()("core/Secrets", {
  accessors: true,
  effect: Effect.gen(function* () {
    const { secretKey } = yield* Config
    const sql = yield* SqlClient.SqlClient
    const key = secretKey === undefined ? undefined : Buffer.from(Redacted.value(secretKey), "base64")

    /** A server secret's stored form (sealed when there is a key), and the secret a stored form holds. */
    const column = (where: SecretColumn) => {
      const context = (id: string) => `${where.table}:${id}`
      const table = sql(where.table)
      const idColumn = sql(where.id)
      const valueColumn = sql(where.value)
      return {
        keep: (id: string, plain: string) =>
          Effect.sync(() => (key === undefined ? plain : sealWith(key, plain, context(id)))),
        reveal: (id: string, stored: string) => {
          if (!isSealed(stored)) return Effect.succeed(stored)
          const plain = key === undefined ? undefined : openWith(key, stored, context(id))
          return plain !== undefined
            ? Effect.succeed(plain)
            : Effect.dieMessage(
                `${where.table} ${id} is sealed with a FIDELIS_SECRET_KEY ` +
                  `${key === undefined ? "this server was not given" : "other than this server's"}: ` +
                  "start it with the key the secret was sealed with"
              )
        },
        /**
         * Seals in place, when there is a key, the rows kept in clear before it was set; a row another
         * process sealed meanwhile is left as that process wrote it.
         */
        sealKeptInClear:
          key === undefined
            ? Effect.void
            : Effect.gen(function* () {
                const rows = yield* sql<{ id: string; value: string }>`
                  SELECT ${idColumn} AS id, ${valueColumn} AS value FROM ${table}`
                for (const row of rows.filter(({ value }) => !isSealed(value))) {
                  yield* sql`
                    UPDATE ${table} SET ${valueColumn} = ${sealWith(key, row.value, context(row.id))}
                    WHERE ${idColumn} = ${row.id} AND ${valueColumn} = ${row.value}`
                }
              })
      }
    }

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
        Effect.sync(() => (key === undefined ? undefined : openWith(key, sealed, context))),
      column
    }
  })
}) {}
