import { z } from "zod"
import { Flag, PageQuery, Timestamp, paginated } from "../contracts.js"
import { Cpf, Telefone } from "../documents.js"
import { ClientId } from "../ids.js"

export const Client = z
  .object({
    id: ClientId,
    nome: z.string(),
    email: z.string().nullable().describe("Contact email; null when the client was created without one"),
    telefone: z.string().nullable().describe("International format, +55 + area code + number"),
    cpf: z.string().nullable().describe("Digits only"),
    pontos: z.number().int().describe("Current points balance"),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "Client",
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

const ClientSort = z
  .enum(["created_at", "-created_at", "nome", "-nome", "pontos", "-pontos"])
  .default("-created_at")
  .describe("Field to sort by; a leading '-' sorts descending")

export const ListClientsInput = z.strictObject({
  ...PageQuery,
  search: z.string().trim().max(100).describe("Case-insensitive match on name, email, phone or CPF").optional(),
  sort: ClientSort
})
export type ListClientsInput = z.infer<typeof ListClientsInput>

export const ClientRef = z.strictObject({ client_id: ClientId.describe("Client id") })

export const CreateClientInput = z
  .strictObject({
    nome: z.string().trim().min(1).max(200).describe("Full name"),
    email: z.email().max(254).toLowerCase().optional().describe("Contact email; also links an existing account"),
    telefone: Telefone.optional(),
    cpf: Cpf.optional()
  })
  .meta({
    examples: [
      {
        nome: "Maria Aparecida da Silva",
        email: "maria.silva@example.com.br",
        telefone: "(11) 98765-4321",
        cpf: "529.982.247-25"
      }
    ]
  })
export type CreateClientInput = z.infer<typeof CreateClientInput>

/**
 * Bulk import. Field contents are NOT validated by this schema: each row is checked on its own
 * against CreateClientInput's rules by the service, so one bad row never refuses the batch.
 */
export const IMPORT_BATCH_MAX = 500

const importCell = (what: string) =>
  z.string().max(2000).describe(`${what}, as written in the source file; empty means absent`).optional()

export const ImportClientRow = z.strictObject({
  row: z
    .int()
    .min(1)
    .describe("The row's number in the caller's source (e.g. the spreadsheet line), echoed in its result"),
  nome: importCell("Full name (required for the row to be imported)"),
  email: importCell("Email"),
  telefone: importCell("Brazilian phone"),
  cpf: importCell("CPF")
})
export type ImportClientRow = z.infer<typeof ImportClientRow>

/** The fields a source file's columns may fill, in the order a CSV header lists them. */
export const IMPORT_COLUMNS = ["nome", "email", "telefone", "cpf"] as const satisfies ReadonlyArray<
  keyof ImportClientRow
>

export const ImportClientsInput = z
  .strictObject({
    rows: z
      .array(ImportClientRow)
      .min(1)
      .max(IMPORT_BATCH_MAX)
      .describe(
        `1 to ${IMPORT_BATCH_MAX} clients to create, each shaped like one client's creation input plus its row number`
      ),
    dry_run: Flag.default(false).describe("Validate and look for existing clients only; nothing is written")
  })
  .meta({
    examples: [
      {
        rows: [
          {
            row: 2,
            nome: "João Pereira Santos",
            email: "joao.pereira@example.com.br",
            telefone: "(21) 99876-5432",
            cpf: "111.444.777-35"
          },
          { row: 3, nome: "Fernanda Lima", email: "fernanda.lima@example.com.br" }
        ],
        dry_run: true
      }
    ]
  })
export type ImportClientsInput = z.infer<typeof ImportClientsInput>

const ImportRowStatus = z
  .enum(["created", "skipped", "invalid"])
  .describe(
    "created: a new client (in a dry run: would be); skipped: a client with this email or CPF already exists, " +
      "or an earlier row of the batch has it; invalid: see errors"
  )

export const ImportRowResult = z.object({
  row: z.int().describe("The row number the caller sent"),
  status: ImportRowStatus,
  client_id: ClientId.optional().describe(
    "The new client's id (created, not in a dry run) or the existing one's (skipped)"
  ),
  errors: z
    .array(z.object({ field: z.string().describe("nome, email, telefone or cpf"), msg: z.string() }))
    .optional()
    .describe("Why the row is invalid")
})
export type ImportRowResult = z.infer<typeof ImportRowResult>

export const ImportClientsResult = z
  .object({
    created: z.int().describe("Rows created (in a dry run: that would be)"),
    skipped: z.int().describe("Rows whose client already exists"),
    invalid: z.int().describe("Rows refused by validation"),
    results: z.array(ImportRowResult).describe("One result per row, in the order sent")
  })
  .meta({
    id: "ClientImportResult",
    examples: [
      {
        created: 1,
        skipped: 1,
        invalid: 1,
        results: [
          { row: 2, status: "created", client_id: "18e80772-42c3-4276-ae21-37f63b69427a" },
          { row: 3, status: "skipped", client_id: "5b0e4a9c-0d1f-4f55-9a43-3e2f1b7c9d10" },
          {
            row: 4,
            status: "invalid",
            errors: [{ field: "cpf", msg: "Invalid CPF: 11 digits with valid check digits" }]
          }
        ]
      }
    ]
  })
export type ImportClientsResult = z.infer<typeof ImportClientsResult>
