import { companyProcedure, refuses, router, runEffect, userProcedure } from "../trpc.js"
import { GetStoreInput, ListStoresInput, StoreDetail, StoreList, StoreProfile, StoreProfileInput } from "./contracts.js"
import { Stores } from "./service.js"

/** The company API's side: the public profile its store shows in the end-user app. */
export const storeProfileRouter = router({
  get: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/store-profile",
        tags: ["Store profile"],
        summary: "Get the store's public profile"
      }
    })
    .output(StoreProfile)
    .query(({ ctx }) => runEffect(ctx, Stores.profile(ctx.empresaId))),

  update: companyProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "PUT",
        path: "/store-profile",
        tags: ["Store profile"],
        summary: "Set the store's public profile",
        description:
          "What the end-user app shows of the store: description, category, address, phone, Instagram, opening " +
          "hours, their time zone and the logo. Fields sent change, absent ones stay, null clears one; " +
          "`business_hours` replaces the whole week."
      }
    })
    .input(StoreProfileInput)
    .output(StoreProfile)
    .mutation(({ ctx, input }) => runEffect(ctx, Stores.updateProfile(ctx.empresaId, input)))
})

const tags = ["Stores"]

/** The end-user API's side: the stores a person can collect points at. */
export const storesRouter = router({
  list: userProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/stores",
        tags,
        summary: "List stores",
        description: "Every store, by name, with whether it is open now in its own time zone."
      }
    })
    .input(ListStoresInput)
    .output(StoreList)
    .query(({ ctx, input }) => runEffect(ctx, Stores.list(input))),

  get: userProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/stores/{store_id}",
        tags,
        summary: "Get a store",
        description:
          "The store's profile and opening hours; `is_open` is computed in the store's time zone, including " +
          "hours that run past midnight."
      }
    })
    .input(GetStoreInput)
    .output(StoreDetail)
    .query(({ ctx, input }) => runEffect(ctx, Stores.get(input)))
})
