import { z } from "zod"
import { MAX_POINTS, PointsAmount } from "../amounts.js"
import { Uuid } from "../contracts.js"
import { ClientId, EmpresaId } from "../ids.js"

export const PointsBalance = z
  .object({
    client_id: ClientId,
    balance: z.number().int().describe(`Points available to spend, at most ${MAX_POINTS}`),
    empresa_id: EmpresaId
  })
  .meta({
    id: "PointsBalance",
    examples: [
      {
        client_id: "18e80772-42c3-4276-ae21-37f63b69427a",
        balance: 120,
        empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b"
      }
    ]
  })

export const CreditPointsInput = z
  .strictObject({
    client_id: ClientId.describe("Client to credit"),
    points: PointsAmount.describe(
      `Points to add, 1 to ${MAX_POINTS}; the balance they reach may not pass ${MAX_POINTS} either`
    ),
    description: z.string().trim().max(500).optional().describe("Shown on the client's timeline"),
    source: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .optional()
      .describe("Where the points came from, e.g. purchase, referral, survey, manual")
  })
  .meta({
    examples: [
      {
        client_id: "18e80772-42c3-4276-ae21-37f63b69427a",
        points: 150,
        description: "Compra de R$ 150,00 na loja Centro",
        source: "pdv"
      }
    ]
  })
export type CreditPointsInput = z.infer<typeof CreditPointsInput>

export const CreditPointsResult = PointsBalance.extend({
  credited: z.number().int().describe("Points added by this operation"),
  transaction_id: Uuid.describe("Ledger entry of this credit")
}).meta({
  id: "PointsCredit",
  examples: [
    {
      client_id: "18e80772-42c3-4276-ae21-37f63b69427a",
      balance: 170,
      empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
      credited: 50,
      transaction_id: "1e39a610-69fa-4949-9168-6051c019cef0"
    }
  ]
})
export type CreditPointsResult = z.infer<typeof CreditPointsResult>
