import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Coupons } from "../src/coupons/service.js"
import { Points } from "../src/points/service.js"
import { newClient, newEmpresa, TestCore } from "./support.js"

layer(TestCore, { timeout: 60_000 })("Coupons.sweep", (it) => {
  it.effect("persists the expiry of overdue active coupons only, and leaves their points spent", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* newEmpresa()
      const client = yield* newClient(empresa.id, "Ana")
      yield* Points.credit(empresa.id, { client_id: client.id, points: 30 })
      const overdue = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      const current = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      const used = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      yield* Coupons.redeem(empresa.id, used.uid)
      yield* sql`UPDATE coupons SET expires_at = now() - interval '1 second'
                 WHERE uid IN ${sql.in([overdue.uid, used.uid])}`

      expect(yield* Coupons.sweep).toBe(1)
      expect(yield* Coupons.sweep).toBe(0)
      const rows = yield* sql<{ uid: string; status: string }>`
        SELECT uid, status FROM coupons WHERE empresa_id = ${empresa.id} ORDER BY created_at`
      expect(rows.map((r) => [r.uid, r.status])).toEqual([
        [overdue.uid, "expired"],
        [current.uid, "active"],
        [used.uid, "used"]
      ])
      expect((yield* Points.balance(empresa.id, client.id)).balance).toBe(0)
    })
  )
})
