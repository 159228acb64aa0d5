import { SqlClient } from "@effect/sql"
import { inTransaction, onUniqueViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { humanCode } from "../codes.js"
import { digitsOnly, escapeLike, pageOf } from "../contracts.js"
import { Conflict, NotFound } from "../errors.js"
import type { ClientId, EmpresaId } from "../ids.js"
import {
  CreateClientInput,
  IMPORT_COLUMNS,
  type Client,
  type ImportClientRow,
  type ImportClientsInput,
  type ImportClientsResult,
  type ImportRowResult,
  type ListClientsInput
} from "./contracts.js"
import { traced } from "../tracing.js"

const CLIENT_COLUMNS = "id, nome, email, telefone, cpf, balance AS pontos, created_at, updated_at"

/** A client created without an email still needs a login of its own (docs/architecture.md, "Tenancy and identity"). */
const loginOf = (email: string | undefined) => email ?? `client+${crypto.randomUUID()}@no-email.invalid`

/** One imported row checked on its own against create_client's rules; blank cells are absent. */
const validateRow = (
  row: ImportClientRow
): { data: CreateClientInput } | { errors: NonNullable<ImportRowResult["errors"]> } => {
  const given = Object.fromEntries(
    IMPORT_COLUMNS.flatMap((field) => {
      const value = row[field]?.trim()
      return value ? [[field, value]] : []
    })
  )
  const parsed = CreateClientInput.safeParse(given)
  if (parsed.success) return { data: parsed.data }
  return {
    errors: parsed.error.issues.map((issue) => {
      const field = String(issue.path[0] ?? "row")
      return { field, msg: field in given ? issue.message : "Required" }
    })
  }
}

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

    const list = traced("Clients.list")(function* (empresaId: EmpresaId, input: ListClientsInput) {
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

    const get = traced("Clients.get")(function* (empresaId: EmpresaId, clientId: ClientId) {
      const [row] =
        yield* sql<Client>`SELECT ${columns} FROM clients WHERE empresa_id = ${empresaId} AND id = ${clientId}`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: clientId })
      return row
    })

    /**
     * Links the person to this empresa. An email that already has an end-user account links that
     * account; without an email a technical login id is provisioned (docs/architecture.md, "Tenancy and identity").
     */
    const create = traced("Clients.create")(function* (empresaId: EmpresaId, input: CreateClientInput) {
      const login = loginOf(input.email)
      const [user] = yield* sql<{ id: string }>`
        INSERT INTO users (email, nome, telefone, cpf, referral_code)
        VALUES (${login}, ${input.nome}, ${input.telefone ?? null}, ${input.cpf ?? null}, ${humanCode(10)})
        ON CONFLICT ((lower(email))) DO UPDATE SET updated_at = users.updated_at
        RETURNING id`
      const [row] = yield* sql<Client>`
        INSERT INTO clients (empresa_id, user_id, nome, email, telefone, cpf)
        VALUES (${empresaId}, ${user!.id}, ${input.nome}, ${input.email ?? null}, ${input.telefone ?? null},
                ${input.cpf ?? null})
        RETURNING ${columns}`.pipe(
        onUniqueViolation(
          (constraint) =>
            new Conflict({
              code: "CLIENT_EXISTS",
              message: constraint.includes("cpf")
                ? "A client with this CPF already exists in this empresa"
                : "A client with this email already exists in this empresa"
            })
        )
      )
      return row!
    }, inTransaction(sql))

    /**
     * Creates the batch's new clients in one transaction, set-based: one lookup for existing
     * emails and CPFs, one insert for logins, one for clients. A row whose email or CPF is already
     * a client of the empresa (or appears on an earlier row of the batch) is skipped, so re-running
     * an import creates nothing twice.
     */
    const importMany = traced("Clients.import")(function* (empresaId: EmpresaId, input: ImportClientsInput) {
      const results: Array<ImportRowResult> = []
      const candidates: Array<{ index: number; data: CreateClientInput }> = []
      input.rows.forEach((row, index) => {
        const checked = validateRow(row)
        if ("errors" in checked) results[index] = { row: row.row, status: "invalid", errors: checked.errors }
        else candidates.push({ index, data: checked.data })
      })

      const emails = [...new Set(candidates.flatMap(({ data }) => (data.email ? [data.email] : [])))]
      const cpfs = [...new Set(candidates.flatMap(({ data }) => (data.cpf ? [data.cpf] : [])))]
      const matches = [
        ...(emails.length > 0 ? [sql`lower(email) IN ${sql.in(emails)}`] : []),
        ...(cpfs.length > 0 ? [sql`cpf IN ${sql.in(cpfs)}`] : [])
      ]
      const existing =
        matches.length === 0
          ? []
          : yield* sql<{ id: ClientId; email: string | null; cpf: string | null }>`
              SELECT id, lower(email) AS email, cpf FROM clients
              WHERE empresa_id = ${empresaId} AND (${sql.or(matches)})`
      const existingId = new Map<string, ClientId>()
      for (const client of existing) {
        if (client.email !== null) existingId.set(`email:${client.email}`, client.id)
        if (client.cpf !== null) existingId.set(`cpf:${client.cpf}`, client.id)
      }

      const seen = new Set<string>()
      const fresh: Array<{ index: number; data: CreateClientInput; login: string }> = []
      for (const { index, data } of candidates) {
        const keys = [data.email && `email:${data.email}`, data.cpf && `cpf:${data.cpf}`].filter(
          (k): k is string => !!k
        )
        const clientId = keys.map((k) => existingId.get(k)).find((id) => id !== undefined)
        if (clientId !== undefined || keys.some((k) => seen.has(k))) {
          results[index] = {
            row: input.rows[index]!.row,
            status: "skipped",
            ...(clientId !== undefined && { client_id: clientId })
          }
          continue
        }
        for (const k of keys) seen.add(k)
        fresh.push({ index, data, login: loginOf(data.email) })
      }

      if (input.dry_run || fresh.length === 0) {
        for (const { index } of fresh) results[index] = { row: input.rows[index]!.row, status: "created" }
      } else {
        const users = yield* sql<{ id: string; login: string }>`
          INSERT INTO users ${sql.insert(
            fresh.map(({ data, login }) => ({
              email: login,
              nome: data.nome,
              telefone: data.telefone ?? null,
              cpf: data.cpf ?? null,
              referral_code: humanCode(10)
            }))
          )}
          ON CONFLICT ((lower(email))) DO UPDATE SET updated_at = users.updated_at
          RETURNING id, lower(email) AS login`
        const userOf = new Map(users.map((user) => [user.login, user.id]))
        // DO NOTHING: a concurrent import (or a login already linked here) makes the row a skip.
        const inserted = yield* sql<{ id: ClientId; user_id: string }>`
          INSERT INTO clients ${sql.insert(
            fresh.map(({ data, login }) => ({
              empresa_id: empresaId,
              user_id: userOf.get(login.toLowerCase())!,
              nome: data.nome,
              email: data.email ?? null,
              telefone: data.telefone ?? null,
              cpf: data.cpf ?? null
            }))
          )}
          ON CONFLICT DO NOTHING
          RETURNING id, user_id`
        const clientOf = new Map(inserted.map((client) => [client.user_id, client.id]))
        for (const { index, login } of fresh) {
          const clientId = clientOf.get(userOf.get(login.toLowerCase())!)
          const row = input.rows[index]!.row
          results[index] =
            clientId !== undefined ? { row, status: "created", client_id: clientId } : { row, status: "skipped" }
        }
      }

      const count = (status: ImportRowResult["status"]) => results.filter((r) => r.status === status).length
      return {
        created: count("created"),
        skipped: count("skipped"),
        invalid: count("invalid"),
        results
      } satisfies ImportClientsResult
    }, inTransaction(sql))

    return sqlErrorsAsDefects({ list, get, create, import: importMany })
  })
}) {}
