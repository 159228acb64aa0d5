import { describe, expect, it } from "vitest"
import { bearer, registerAccount, useEndUserServer, verifyEmail } from "../support/accounts.js"
import { call, createClient, type ApiResponse } from "../support/http.js"

/**
 * The survey's contact step as a membership oracle: an anonymous caller saving a promoter's contact
 * with some phone got back that client's `referral_code`, so anyone could test phone numbers for
 * membership and collect codes. The answer must be the same whether or not the phone is a client's;
 * the client's own link goes to the client's own verified address.
 */
const { server, sink, tenant } = await useEndUserServer()

const MEMBER_PHONE = "(11) 91234-5678"
const STRANGER_PHONE = "(11) 98765-4321"

/** A promoter's response and its contact, as anyone on the internet can send them. */
const promoterContact = async (phone: string) => {
  const ref = tenant.empresa.id_name
  const active = await call(server, `/api/v1/public/quests/${ref}/active`)
  const submitted = await call(server, `/api/v1/public/quests/${ref}/${active.body.quest_id}/responses`, {
    body: { response: { csat: 5, nps: 10 } }
  })
  expect(submitted.status).toBe(201)
  return call(server, `/api/v1/public/quests/${ref}/${submitted.body.response_id}/contact`, {
    method: "PATCH",
    body: { client_phone: phone }
  })
}

/** What may differ between two answers: the response's id, time and phone, the request id, clock and budget. */
const comparable = (res: ApiResponse) => {
  const { response_id: _id, submitted_at: _at, client_phone: _phone, ...body } = res.body
  const headers = Object.fromEntries(
    [...res.headers].filter(
      ([name]) =>
        !["date", "x-request-id", "content-length", "x-ratelimit-remaining", "x-ratelimit-reset"].includes(name)
    )
  )
  return { status: res.status, body, headers }
}

const invitationsTo = (address: string) =>
  sink.messages.filter(
    (m) => m.envelope.to.includes(address) && m.parsed.headers.get("x-fidelis-message-kind") === "referral_invite"
  )

describe("the survey contact step as a customer lookup", () => {
  it("answers a client's phone and a stranger's alike, and mails the client's link to the client only", async () => {
    const registered = await registerAccount(server)
    // Verifying ends the registration's session: the account logs in again.
    const account = await verifyEmail(server, sink, registered.user.email)
    await createClient(server, tenant, { email: account.user.email, telefone: MEMBER_PHONE })
    const code = (await call(server, "/api/v1/users/me", { headers: bearer(account.access_token) })).body
      .referral_code as string

    const member = await promoterContact(MEMBER_PHONE)
    const stranger = await promoterContact(STRANGER_PHONE)
    expect(member.status).toBe(200)
    expect(comparable(member)).toEqual(comparable(stranger))
    expect(JSON.stringify(member.body)).not.toContain(code)
    expect(JSON.stringify([...member.headers])).not.toContain(code)

    // The client's own verified mailbox gets the referral link, once however often the phone is typed in.
    await promoterContact(MEMBER_PHONE)
    const deadline = Date.now() + 20_000
    while (invitationsTo(account.user.email).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(String(invitationsTo(account.user.email)[0]?.parsed.text)).toContain(code)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(invitationsTo(account.user.email)).toHaveLength(1)
  })

  it("sends nothing for a client without a verified email, and answers alike", async () => {
    const unverified = await registerAccount(server)
    await createClient(server, tenant, { email: unverified.user.email, telefone: "(21) 99876-5432" })
    const res = await promoterContact("(21) 99876-5432")
    expect(comparable(res)).toEqual(comparable(await promoterContact("(21) 99999-1234")))
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(invitationsTo(unverified.user.email)).toEqual([])
  })
})
