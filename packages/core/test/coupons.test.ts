import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Clients } from "../src/clients/service.js"
import { Coupons } from "../src/coupons/service.js"
import { Empresas } from "../src/empresas/service.js"
import { Points } from "../src/points/service.js"
import { TestCore } from "./support.js"


layer(TestCore, { timeout: 60_000 })("Coupons.sweep", (it) => {
  it.effect("persists the expiry of overdue active coupons only, and leaves their points spent", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const empresa = yield* Empresas.create({
        name: "Sweep",
        id_name: `sweep-${Math.random().toString(36).slice(2, 10)}`,
        plan: "free",
        api_access: true,
        settings: {}
      })
      const client = yield* Clients.create(empresa.id, { nome: "Ana" })
      yield* Points.credit(empresa.id, { client_id: client.id, points: 30 })
      const overdue = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      const current = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      const used = yield* Coupons.generate(empresa.id, { client_id: client.id, points: 10 })
      yield* Coupons.redeem(empresa.id, used.uid)
      yield* sql`UPDATE coupons SET expires_at = now() - interval '1 second' WHERE uid IN ${sql.in([overdue.uid, used.uid])}`

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
