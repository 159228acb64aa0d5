import { afterAll, describe, expect, it } from "vitest"
import { startSmtpSink } from "../../packages/core/test/smtp-sink.js"
import { endUserEnv, expectRefusal, memberOf } from "../support/accounts.js"
import { useServer, useTenant } from "../support/hooks.js"
import { call, createTenant } from "../support/http.js"
import {
  aammOf,
  brasilia,
  keyOf,
  newCnpj,
  nfceFixtures,
  offlineQr,
  receiptEvents,
  registerCnpj,
  scan,
  settled,
  wallet
} from "../support/nfce.js"

/**
 * A forged offline receipt the state never confirms must not stay pending for ever: once its
 * window has passed it is reversed, and the timeline says why. The window is tied to the issue
 * day, so this server's is set, when its process is spawned, for a receipt issued two days ago to
 * run out `MARGIN_S` seconds later; its looks at the page come every 1-3 seconds meanwhile. (On a
 * machine slow enough to take longer than that to start, the first look reverses it.)
 */
const MARGIN_S = 90
const issued = brasilia(2)
const issueDayEnd = Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth(), issued.getUTCDate() + 1, 5)
const fixtures = nfceFixtures()
const sink = await startSmtpSink()
afterAll(() => sink.close())
const env = {
  ...endUserEnv(sink),
  ...fixtures.env,
  FIDELIS_NFCE_RECHECK_BASE_SECONDS: "1",
  FIDELIS_NFCE_RECHECK_MAX_SECONDS: "3"
}
// Read when the server process is spawned, not when this file is collected.
Object.defineProperty(env, "FIDELIS_NFCE_OFFLINE_WINDOW_SECONDS", {
  enumerable: true,
  get: () => String(Math.ceil((Date.now() - issueDayEnd) / 1000) + MARGIN_S)
})
const server = useServer({ env })
const tenant = useTenant(server)
const member = () => memberOf(server, sink, tenant, 0)

describe("an offline receipt nobody confirms", () => {
  it(
    "is reversed when its window ends, with a timeline event saying why; scanning again does not reopen it",
    {
      timeout: 240_000
    },
    async () => {
      const store = await createTenant(server)
      const cnpj = newCnpj()
      await registerCnpj(server, store, {}, cnpj)
      const user = await member()
      const qr = offlineQr("300.00", keyOf({ tpEmis: "9", cnpj, aamm: aammOf(issued) }), issued)
      const res = await scan(server, user, qr)
      expect(res.status, JSON.stringify(res.body)).toBe(202)

      const seen = new Set<string>()
      const pendingBalances: Array<number> = []
      for (;;) {
        const task = await settled(server, user, res.body.task_id, { ms: 5_000, passing: [] })
        seen.add(task.status)
        if (task.status === "pending") pendingBalances.push((await wallet(server, user, store)).saldo_pontos)
        if (task.status !== "processing" && task.status !== "pending") break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      const done = await settled(server, user, res.body.task_id, { passing: [] })
      expect(done).toMatchObject({ status: "reversed", points: null, pending_points: null })
      expect(done.message).toMatch(/450 pending points reversed: the state's page did not show this offline receipt/)
      // Whatever was seen while it waited, none of it was ever spendable.
      expect(pendingBalances.every((balance) => balance === 0)).toBe(true)
      expect(await wallet(server, user, store)).toMatchObject({ saldo_pontos: 0, pending_points: 0, total_earned: 0 })
      const reversal = (await receiptEvents(server, user)).find((event: any) => event.metadata.status === "reversed")
      expect(reversal).toMatchObject({
        points: 0,
        title: "450 pending points reversed",
        description: expect.stringMatching(
          /did not show this offline receipt .* the store did not transmit it in time/
        ),
        metadata: { nfce_id: res.body.task_id, reversed_points: 450 }
      })

      // Scanning it again reopens the task, but the window is the receipt's: the first look reverses it.
      const again = await scan(server, user, qr)
      expect(again.status, JSON.stringify(again.body)).toBe(202)
      expect(await settled(server, user, res.body.task_id)).toMatchObject({ status: "reversed" })
      expect((await wallet(server, user, store)).saldo_pontos).toBe(0)
    }
  )
})

describe("without FIDELIS_SECRET_KEY", () => {
  it("a store's CSC is refused, never stored in clear", async () => {
    const store = await createTenant(server)
    const cnpj = newCnpj()
    await registerCnpj(server, store, {}, cnpj)
    const res = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/cscs/1`, {
      method: "PUT",
      key: store.key,
      body: { csc_token: "A1B2C3D4-E5F6-4789-ABCD-0123456789EF" }
    })
    expectRefusal(res, "SECRET_KEY_NOT_SET")
    expect(res.body.detail.message).toMatch(/FIDELIS_SECRET_KEY/)
    const proofs = await call(server, `/api/v1/public/nfce/cnpjs/${cnpj}/proofs`, { key: store.key })
    expect(proofs.body.cscs).toEqual([])
  })
})
