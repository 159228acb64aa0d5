import { describe, expect, it } from "vitest"
import type { SmtpSink } from "../../packages/core/test/smtp-sink.js"
import { call, emailedToken, fromAddress, registerAccount, useEndUserServer } from "../support/index.js"

/**
 * Attack: anyone could ask for password-reset emails to someone's address, from as many client
 * addresses as they had, filling the mailbox (and the sender's reputation). An account's address
 * gets at most 3 account emails (verification and reset together) per hour, whoever asks; past
 * that the answer is the same 202 and nothing is sent (docs/decisions.md "Account emails per address").
 */

const MAILS_PER_HOUR = 3

const { server, sink } = await useEndUserServer({ FIDELIS_TRUSTED_PROXIES: "127.0.0.1" })

const askReset = (email: string, address: string) =>
  call(server, "/api/v1/auth/request-password-reset", { body: { email }, headers: fromAddress(address) })

const accountMailsTo = (target: SmtpSink, to: string) =>
  target.messages.filter(
    (m) => m.envelope.to.includes(to) && m.parsed.headers.get("x-fidelis-message-kind") !== undefined
  )

/**
 * Waits until every account email queued so far has been sent: a marker account's reset is
 * queued after them and waited for, twice, since the mail worker takes jobs in order in rounds.
 */
const settle = async (marker: string) => {
  for (let round = 0; round < 2; round++) {
    const before = accountMailsTo(sink, marker).length
    expect((await askReset(marker, "192.0.2.200")).status).toBe(202)
    const deadline = Date.now() + 30_000
    while (accountMailsTo(sink, marker).length === before) {
      if (Date.now() > deadline) throw new Error("the marker's reset email never came")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

describe("password-reset email bombing", () => {
  it("sends an address at most 3 account emails an hour from any client addresses, with the same answer", async () => {
    const { user } = await registerAccount(server)
    const marker = await registerAccount(server)
    const stranger = await askReset("nobody.at.all@example.com", "198.51.100.99")
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => askReset(user.email, `198.51.100.${i + 1}`)))
    for (const res of answers) {
      expect(res.status).toBe(202)
      expect(res.body).toEqual(stranger.body)
    }
    await settle(marker.user.email)
    // The verification email of the registration, and two resets.
    const mails = accountMailsTo(sink, user.email)
    expect(mails).toHaveLength(MAILS_PER_HOUR)
    expect(mails.filter((m) => m.parsed.headers.get("x-fidelis-message-kind") === "reset_password")).toHaveLength(2)
  })

  it("keeps a link the limit counted working: the owner resets with the latest one in the mailbox", async () => {
    const { user } = await registerAccount(server)
    for (let i = 0; i < 5; i++) expect((await askReset(user.email, `198.51.100.${50 + i}`)).status).toBe(202)
    const { token } = await emailedToken(sink, user.email, "reset_password")
    const reset = await call(server, "/api/v1/auth/reset-password", {
      body: { token, password: "outra-senha-2" }
    })
    expect(reset.status).toBe(200)
  })
})
