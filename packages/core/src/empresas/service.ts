import { SqlClient } from "@effect/sql"
import { jsonb, onUniqueViolation } from "@fidelis/db"
import { Effect } from "effect"
import { AuthCache } from "../auth/cache.js"
import { Conflict, NotFound } from "../errors.js"
import type { CreateEmpresaInput, Empresa, UpdateEmpresaInput } from "./contracts.js"

const duplicate = (constraint: string) =>
  constraint.includes("cnpj")
    ? new Conflict({ code: "CNPJ_TAKEN", message: "Another empresa already has this CNPJ" })
    : new Conflict({ code: "ID_NAME_TAKEN", message: "Another empresa already uses this id_name" })

export class Empresas extends Effect.Service<Empresas>()("core/Empresas", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const authCache = yield* AuthCache

    const create = Effect.fn("Empresas.create")(function* (input: CreateEmpresaInput) {
      const [row] = yield* sql<Empresa>`
        INSERT INTO empresas (name, id_name, cnpj, plan, api_access, settings)
        VALUES (${input.name}, ${input.id_name}, ${input.cnpj ?? null}, ${input.plan}, ${input.api_access},
                ${jsonb(input.settings)}::jsonb)
        RETURNING *`.pipe(onUniqueViolation(duplicate))
      return row!
    })

    const get = Effect.fn("Empresas.get")(function* (id: string) {
      const [row] = yield* sql<Empresa>`SELECT * FROM empresas WHERE id = ${id}`
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id })
      return row
    })

    /** An empresa by UUID or by its public slug, as survey links and `--empresa` name it. */
    const resolve = Effect.fn("Empresas.resolve")(function* (ref: string) {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref)
      const [row] = isUuid
        ? yield* sql<Empresa>`SELECT * FROM empresas WHERE id = ${ref}`
        : yield* sql<Empresa>`SELECT * FROM empresas WHERE id_name = ${ref.toLowerCase()}`
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id: ref })
      return row
    })

    const update = Effect.fn("Empresas.update")(function* (input: UpdateEmpresaInput) {
      const { empresa_id, settings, ...fields } = input
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      const [row] = yield* sql<Empresa>`
        UPDATE empresas SET
          ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
          settings = settings || ${jsonb(settings ?? {})}::jsonb,
          updated_at = now()
        WHERE id = ${empresa_id}
        RETURNING *`.pipe(onUniqueViolation(duplicate))
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id: empresa_id })
      // Cached authentications carry the plan's api_access: they must not outlive a change.
      if (input.api_access !== undefined) yield* authCache.empresaChanged(empresa_id)
      return row
    })

    return { create, get, resolve, update } as const
  })
}) {}
