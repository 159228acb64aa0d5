import { z } from "zod"
import { adminProcedure, refuses, router, runEffect } from "../trpc.js"
import { ApiKeyCreated, ApiKeyRecord, CreateApiKeyInput, ListApiKeysInput, RevokeApiKeyInput } from "./contracts.js"
import { ApiKeys } from "./service.js"

const tags = ["API keys"]

export const keysRouter = router({
  create: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      successStatus: 201,
      location: "/api-keys/{id}",
      openapi: {
        method: "POST",
        path: "/empresas/{empresa_id}/api-keys",
        tags,
        summary: "Create an API key",
        description: "Creates a key for the empresa. The key value is returned only in this response."
      },
      tool: { name: "create_api_key", adminOnly: true }
    })
    .input(CreateApiKeyInput)
    .output(ApiKeyCreated)
    .mutation(({ ctx, input }) => runEffect(ctx, ApiKeys.create(input.empresa_id, input))),

  list: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/empresas/{empresa_id}/api-keys",
        tags,
        summary: "List an empresa's API keys",
        description:
          "Every key of the empresa, newest first, revoked ones included: name, scope, prefix and when it was " +
          "last used, never the key itself. An unknown empresa is NOT_FOUND."
      },
      tool: { name: "list_api_keys", adminOnly: true, readOnly: true }
    })
    .input(ListApiKeysInput)
    .output(z.array(ApiKeyRecord))
    .query(({ ctx, input }) => runEffect(ctx, ApiKeys.list(input.empresa_id))),

  revoke: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api-keys/{key_id}",
        tags,
        summary: "Revoke an API key",
        description: "Takes effect immediately on every server. Revoking a revoked key returns it unchanged."
      },
      tool: { name: "revoke_api_key", adminOnly: true, destructive: true }
    })
    .input(RevokeApiKeyInput)
    .output(ApiKeyRecord)
    .mutation(({ ctx, input }) => runEffect(ctx, ApiKeys.revoke(input.key_id)))
})
