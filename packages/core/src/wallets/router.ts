import { StoreRef } from "../stores/contracts.js"
import { refuses, router, runEffect, userProcedure } from "../trpc.js"
import { StoreWallet, WalletList } from "./contracts.js"
import { Wallets } from "./service.js"

const tags = ["Wallets"]

/** Spec 4.4's `/establishments/...` routes: the user's balances per store. */
export const establishmentsRouter = router({
  wallets: userProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/establishments/user/wallets",
        tags,
        summary: "The user's wallets",
        description: "One per store where the user is a client, once the user's email is verified."
      }
    })
    .output(WalletList)
    .query(({ ctx }) => runEffect(ctx, Wallets.list(ctx.userId))),

  wallet: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/establishments/stores/{store_id}/wallet",
        tags,
        summary: "The user's wallet at one store",
        description: "Balances and totals from the store's ledger; 404 where the user is not a (verified) client."
      }
    })
    .input(StoreRef)
    .output(StoreWallet)
    .query(({ ctx, input }) => runEffect(ctx, Wallets.atStore(ctx.userId, input.store_id)))
})
