import { SqlClient } from "@effect/sql"
import { onUniqueViolation } from "@fidelis/db"
import { Effect } from "effect"
import { humanCode } from "../codes.js"
import { digitsOnly, escapeLike, pageOf } from "../contracts.js"
import { Conflict, NotFound } from "../errors.js"
import type { Client, CreateClientInput, ListClientsInput } from "./contracts.js"

const CLIENT_COLUMNS = "id, nome, email, telefone, cpf, balance AS pontos, created_at, updated_at"

const ORDER_BY: Record<ListClientsInput["sort"], string> = {
  created_at: "created_at ASC, id ASC",
  "-created_at": "created_at DESC, id DESC",
  nome: "lower(nome) ASC, id ASC",
  "-nome": "lower(nome) DESC, id DESC",
  pontos: "balance ASC, id ASC",
  "-pontos": "balance DESC, id DESC"
}

export class Clients extends Effect.Service<Clients>()("core/Clients", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(CLIENT_COLUMNS)

    const list = Effect.fn("Clients.list")(function* (empresaId: string, input: ListClientsInput) {
      const term = input.search ? `%${escapeLike(input.search.toLowerCase())}%` : undefined
      const digits = input.search ? digitsOnly(input.search) : ""
      const digitTerm = digits.length >= 3 ? `%${digits}%` : undefined
      const where = term
        ? sql`AND (lower(nome) LIKE ${term} OR lower(email) LIKE ${term}
              ${digitTerm ? sql`OR telefone LIKE ${digitTerm} OR cpf LIKE ${digitTerm}` : sql``})`
        : sql``
      const offset = (input.page - 1) * input.per_page
      const [rows, [count]] = yield* Effect.all(
        [
          sql<Client>`
            SELECT ${columns} FROM clients WHERE empresa_id = ${empresaId} ${where}
            ORDER BY ${sql.literal(ORDER_BY[input.sort])} LIMIT ${input.per_page} OFFSET ${offset}`,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM clients WHERE empresa_id = ${empresaId} ${where}`
        ],
        { concurrency: 1 }
      )
      return pageOf(rows, count?.total ?? 0, input.page, input.per_page)
    })

    const get = Effect.fn("Clients.get")(function* (empresaId: string, clientId: string) {
      const [row] = yield* sql<Client>`SELECT ${columns} FROM clients WHERE empresa_id = ${empresaId} AND id = ${clientId}`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: clientId })
      return row
    })

    /**
     * Links the person to this empresa. An email that already has an end-user account links that
     * account; without an email a technical login id is provisioned (design.md section 3).
     */
    const create = Effect.fn("Clients.create")(function* (empresaId: string, input: CreateClientInput) {
      const login = input.email ?? `client+${crypto.randomUUID()}@no-email.invalid`
      const [user] = yield* sql<{ id: string }>`
        INSERT INTO users (email, nome, telefone, cpf, referral_code)
        VALUES (${login}, ${input.nome}, ${input.telefone ?? null}, ${input.cpf ?? null}, ${humanCode(10)})
        ON CONFLICT ((lower(email))) DO UPDATE SET updated_at = users.updated_at
        RETURNING id`
      const [row] = yield* sql<Client>`
        INSERT INTO clients (empresa_id, user_id, nome, email, telefone, cpf)
        VALUES (${empresaId}, ${user!.id}, ${input.nome}, ${input.email ?? null}, ${input.telefone ?? null}, ${input.cpf ?? null})
        RETURNING ${columns}`.pipe(
        onUniqueViolation((constraint) =>
          new Conflict({
            code: "CLIENT_EXISTS",
            message: constraint.includes("cpf")
              ? "A client with this CPF already exists in this empresa"
              : "A client with this email already exists in this empresa"
          })
        )
      )
      return row!
    }, sql.withTransaction)

    return { list, get, create } as const
  })
}) {}
