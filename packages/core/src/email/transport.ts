import { MEMORY } from "@fidelis/db"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { chmod, mkdir, rename, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../config.js"
import { JobFailed } from "../jobs/contracts.js"

/** One rendered message, ready for the transport. */
export interface OutgoingMail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  /** `<…@…>`, derived from the outbox row, so a duplicate send is recognisable. */
  readonly messageId: string
  readonly headers: Readonly<Record<string, string>>
}

/** How long the SMTP dialogue may take; together well under a job's lease. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/** The server's reply code of a failed send, when it answered one. */
const replyCodeOf = (error: unknown): number | undefined => {
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  return typeof code === "number" ? code : undefined
}

/** A send that failed: a 5xx reply is final (the server refused it for good), anything else may pass later. */
const failedSend = (error: unknown) => {
  const reply = replyCodeOf(error)
  return new JobFailed({
    message: `Send failed: ${error instanceof Error ? error.message : String(error)}`,
    permanent: reply !== undefined && reply >= 500
  })
}

/** An SMTP URL as it may be printed: without its password. */
const printable = (url: string) => {
  const parsed = new URL(url)
  if (parsed.password !== "") parsed.password = "***"
  return parsed.toString()
}

/**
 * Where the .eml files go, their owner's alone (0700): `<data dir>/mail`, made on the first
 * message; for an in-memory data dir, a fresh temporary folder (mkdtemp: a name no one could
 * have made first), removed with the tokens its messages carry when the mailer stops or the
 * process exits.
 */
const mailFolder = (dataDir: string) => {
  if (dataDir !== MEMORY) {
    const folder = join(dataDir, "mail")
    const ready = async () => {
      await mkdir(folder, { recursive: true, mode: 0o700 })
      // One made by an older version is 0755.
      await chmod(folder, 0o700)
    }
    return Effect.succeed({ folder, ready })
  }
  return Effect.acquireRelease(
    Effect.sync(() => {
      const folder = mkdtempSync(join(tmpdir(), "fidelis-mail-"))
      const remove = () => rmSync(folder, { recursive: true, force: true })
      process.once("exit", remove)
      return { folder, remove, ready: () => Promise.resolve() }
    }),
    ({ remove }) =>
      Effect.sync(() => {
        process.removeListener("exit", remove)
        remove()
      })
  )
}

/**
 * Sends mail with nodemailer: over SMTP when FIDELIS_SMTP_URL is set, else as one .eml file per
 * message (0600: they hold verification and reset links) in `mailFolder`, which is what `target`
 * names for the start-up log.
 */
export class Mailer extends Effect.Service<Mailer>()("core/Mailer", {
  scoped: Effect.gen(function* () {
    const config = yield* Config
    const { from, smtpUrl } = config.email
    // Imported when the mailer is built, not with core: the CLI's remote commands never send mail
    // (docs/decisions.md, "CLI start-up").
    const { default: nodemailer } = yield* Effect.promise(() => import("nodemailer"))

    if (smtpUrl !== undefined) {
      const transport = nodemailer.createTransport({ url: Redacted.value(smtpUrl), ...SMTP_TIMEOUTS })
      yield* Effect.addFinalizer(() => Effect.sync(() => transport.close()))
      return {
        target: `smtp ${printable(Redacted.value(smtpUrl))}`,
        send: (mail: OutgoingMail) =>
          Effect.tryPromise({
            try: () => transport.sendMail({ from, ...mail }),
            catch: failedSend
          }).pipe(Effect.map((info) => ({ response: String(info.response) })))
      }
    }

    const { folder, ready } = yield* mailFolder(config.dataDir)
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" })
    return {
      target: `files in ${folder}`,
      send: (mail: OutgoingMail) =>
        Effect.tryPromise({
          try: async () => {
            const info = await transport.sendMail({ from, ...mail })
            await ready()
            const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${mail.messageId.replace(/[^\w.@-]/g, "")}`
            // Written aside and renamed, so a reader never sees half a message.
            const path = join(folder, `${name}.eml`)
            await writeFile(`${path}.tmp`, info.message as Buffer, { mode: 0o600 })
            await rename(`${path}.tmp`, path)
            return { response: `written to ${path}` }
          },
          catch: failedSend
        })
    }
  })
}) {}
