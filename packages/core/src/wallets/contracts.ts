import { z } from "zod"
import { ClientId, EmpresaId } from "../ids.js"

const Points = z.number().int()
const Cashback = z.number().describe("Cashback balance in BRL")
const Pending = z
  .number()
  .int()
  .describe(
    "Points of offline (contingency) NFC-e receipts awaiting the state's confirmation: not in saldo_pontos, " +
      "not spendable; they join it once confirmed, or are reversed"
  )

const WALLET_EXAMPLE = {
  id: "6f1c2d9e-8a41-4c55-9a0e-3d2b1f0e7a10",
  empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
  empresa_name: "Padaria Sol",
  empresa_logo: null,
  saldo_pontos: 340,
  saldo_cashback: 0,
  pending_points: 0
}

/** The user's balance at one store (spec 2.4 "Wallet (per company)"); `id` is the user's client record there. */
const Wallet = z.object({
  id: ClientId,
  empresa_id: EmpresaId,
  empresa_name: z.string(),
  empresa_logo: z.string().nullable(),
  saldo_pontos: Points,
  saldo_cashback: Cashback,
  pending_points: Pending
})
export type Wallet = z.infer<typeof Wallet>

export const WalletList = z.object({ wallets: z.array(Wallet) }).meta({ examples: [{ wallets: [WALLET_EXAMPLE] }] })

export const StoreWallet = z
  .object({
    store_id: EmpresaId,
    store_name: z.string(),
    saldo_pontos: Points,
    saldo_cashback: Cashback,
    pending_points: Pending,
    total_earned: Points.describe("Points ever credited at this store"),
    total_spent: Points.describe("Points spent at this store, less the spends given back")
  })
  .meta({
    examples: [
      {
        store_id: WALLET_EXAMPLE.empresa_id,
        store_name: "Padaria Sol",
        saldo_pontos: 340,
        saldo_cashback: 0,
        pending_points: 0,
        total_earned: 500,
        total_spent: 160
      }
    ]
  })
export type StoreWallet = z.infer<typeof StoreWallet>
