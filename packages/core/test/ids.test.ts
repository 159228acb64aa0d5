import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { Uuid } from "../src/contracts.js"
import { Coupons } from "../src/coupons/service.js"
import {
  CampaignId,
  CardId,
  ClientId,
  CouponUid,
  EmpresaId,
  KeyId,
  ProductId,
  ProgramId,
  QuestId,
  RewardId
} from "../src/ids.js"
import { Points } from "../src/points/service.js"
import { companyProcedure } from "../src/trpc.js"

describe("branded ids", () => {
  it("are plain UUIDs on the wire: the brand changes no schema", () => {
    for (const id of [EmpresaId, ClientId, ProductId, RewardId, CardId, ProgramId, CampaignId, QuestId, KeyId]) {
      expect(z.toJSONSchema(id)).toEqual(z.toJSONSchema(Uuid))
    }
    expect(z.toJSONSchema(CouponUid)).toEqual(z.toJSONSchema(z.string()))
  })

  // Checked by `npm run typecheck`: the programs are built, never run.
  it("make a swapped argument a compile error", () => {
    const empresaId = EmpresaId.parse(randomUUID())
    const clientId = ClientId.parse(randomUUID())
    const productId = ProductId.parse(randomUUID())
    // @ts-expect-error a client id where the empresa id goes
    const swapped = Points.balance(clientId, empresaId)
    // @ts-expect-error a product id is not a coupon's code
    const mistaken = Coupons.get(empresaId, productId)
    // @ts-expect-error an unchecked string is no id
    const unchecked = Points.balance(empresaId, clientId as string)
    expect([swapped, mistaken, unchecked, Points.balance(empresaId, clientId)].every(Effect.isEffect)).toBe(true)
  })

  it("give company procedures the request's empresa as an EmpresaId", () => {
    type CompanyContext = Parameters<Parameters<typeof companyProcedure.query>[0]>[0]["ctx"]
    expectTypeOf<CompanyContext["empresaId"]>().toEqualTypeOf<EmpresaId>()
  })
})
