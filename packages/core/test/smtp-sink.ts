import { simpleParser, type ParsedMail } from "mailparser"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

/** A message as the sink received it: the parsed mail, its raw source and its envelope. */
export interface ReceivedMail {
  readonly parsed: ParsedMail
  readonly raw: string
  readonly envelope: { readonly from: string; readonly to: ReadonlyArray<string> }
}

/**
 * What the sink does with the next message: accept it, refuse it with a reply code (451: try
 * later; 550: refused for good), or hold it (never answer the DATA, as a server that hangs).
 */
export type SinkMode =
  { readonly kind: "accept" } | { readonly kind: "reject"; readonly code: number } | { readonly kind: "hold" }

/** A real SMTP server on a loopback port (the `smtp-server` package), which keeps what it receives. */
export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, for FIDELIS_SMTP_URL. */
  readonly url: string
  readonly messages: ReadonlyArray<ReceivedMail>
  /** DATA commands seen, refused and held ones included. */
  readonly attempts: () => number
  mode: SinkMode
  /** Resolves with the messages once `count` have been accepted. */
  waitFor(count: number, ms?: number): Promise<ReadonlyArray<ReceivedMail>>
  close(): Promise<void>
}

export const startSmtpSink = async (): Promise<SmtpSink> => {
  const messages: ReceivedMail[] = []
  let attempts = 0
  const sink: { mode: SinkMode } = { mode: { kind: "accept" } }
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: nodemailer would otherwise upgrade to the sink's self-signed TLS.
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    // A held message must not keep close() waiting for its connection.
    closeTimeout: 500,
    onData(stream, session, callback) {
      attempts++
      const mode = sink.mode
      const chunks: Buffer[] = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        if (mode.kind === "hold") return
        if (mode.kind === "reject") {
          callback(Object.assign(new Error(`Refused by the test sink (${mode.code})`), { responseCode: mode.code }))
          return
        }
        const raw = Buffer.concat(chunks).toString("utf8")
        simpleParser(raw).then(
          (parsed) => {
            messages.push({
              parsed,
              raw,
              envelope: {
                from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
                to: session.envelope.rcptTo.map((rcpt) => rcpt.address)
              }
            })
            callback()
          },
          (error: Error) => callback(error)
        )
      })
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    attempts: () => attempts,
    get mode() {
      return sink.mode
    },
    set mode(mode: SinkMode) {
      sink.mode = mode
    },
    waitFor: async (count, ms = 20_000) => {
      const deadline = Date.now() + ms
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`the sink received ${messages.length} of ${count} messages`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      return messages
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
