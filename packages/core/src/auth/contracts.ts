import { z } from "zod"
import { Timestamp } from "../contracts.js"
import { EmpresaId, KeyId } from "../ids.js"

export const ApiKeyScope = z
  .enum(["empresa", "admin"])
  .describe("empresa: the company API and tools; admin: platform administration")
export type ApiKeyScope = z.infer<typeof ApiKeyScope>

export const ApiKeyRecord = z
  .object({
    id: KeyId,
    empresa_id: EmpresaId,
    name: z.string(),
    scope: ApiKeyScope,
    prefix: z.string().describe("First characters of the key, to recognise it without revealing it"),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable()
  })
  .meta({ id: "ApiKey" })
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>

export const ApiKeyCreated = ApiKeyRecord.extend({
  key: z.string().describe("The key itself. Shown only in this response: store it now.")
}).meta({
  id: "ApiKeyCreated",
  examples: [
    {
      id: "5d0c8a2e-7b1f-4f3a-9c6d-2e8b4a1f0c3d",
      empresa_id: "0b7e5b8c-2f4e-4e8e-9a43-6c1f2d3e4a5b",
      name: "POS terminal",
      scope: "empresa",
      prefix: "fid_7VrFTvde",
      created_at: "2026-11-22T10:00:00.000Z",
      revoked_at: null,
      last_used_at: null,
      key: "fid_7VrFTvdelETTsN1_bfPQsLd-hNRyvM9x"
    }
  ]
})
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>

export const CreateApiKeyInput = z
  .strictObject({
    empresa_id: EmpresaId.describe("The empresa the key acts for"),
    name: z.string().trim().min(1).max(100).describe("Free text to recognise the key later"),
    scope: ApiKeyScope.default("empresa")
  })
  .meta({
    examples: [{ empresa_id: "2b3c4d5e-6f70-4819-a2b3-c4d5e6f7a8b9", name: "PDV loja Centro", scope: "empresa" }]
  })

export const ListApiKeysInput = z.strictObject({ empresa_id: EmpresaId.describe("The empresa whose keys to list") })
export const RevokeApiKeyInput = z.strictObject({ key_id: KeyId.describe("The key to revoke (its id, not its value)") })
