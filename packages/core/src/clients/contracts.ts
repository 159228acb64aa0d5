import { z } from "zod"
import { PageQuery, Timestamp, Uuid, paginated } from "../contracts.js"
import { Cpf, Telefone } from "../documents.js"

export const Client = z.object({
  id: Uuid,
  nome: z.string(),
  email: z.string().nullable().describe("Contact email; null when the client was created without one"),
  telefone: z.string().nullable().describe("International format, +55 + area code + number"),
  cpf: z.string().nullable().describe("Digits only"),
  pontos: z.number().int().describe("Current points balance"),
  created_at: Timestamp,
  updated_at: Timestamp
}).meta({
  examples: [
    {
      id: "18e80772-42c3-4276-ae21-37f63b69427a",
      nome: "Ana Souza",
      email: "ana.souza@example.com",
      telefone: "+5511912345678",
      cpf: "52998224725",
      pontos: 120,
      created_at: "2026-11-02T14:03:11.000Z",
      updated_at: "2026-11-20T09:41:52.000Z"
    }
  ]
})
export type Client = z.infer<typeof Client>

export const ClientPage = paginated(Client)

export const ClientSort = z
  .enum(["created_at", "-created_at", "nome", "-nome", "pontos", "-pontos"])
  .default("-created_at")
  .describe("Field to sort by; a leading '-' sorts descending")

export const ListClientsInput = z.strictObject({
  ...PageQuery,
  search: z.string().trim().max(100).describe("Case-insensitive match on name, email, phone or CPF").optional(),
  sort: ClientSort
})
export type ListClientsInput = z.infer<typeof ListClientsInput>

export const ClientRef = z.strictObject({ client_id: Uuid.describe("Client id") })

export const CreateClientInput = z.strictObject({
  nome: z.string().trim().min(1).max(200).describe("Full name"),
  email: z.email().max(254).toLowerCase().optional(),
  telefone: Telefone.optional(),
  cpf: Cpf.optional()
})
export type CreateClientInput = z.infer<typeof CreateClientInput>
