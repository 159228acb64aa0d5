import { SqlClient } from "@effect/sql"
import { jsonb, onUniqueViolation, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { AuthCache } from "../auth-cache.js"
import { Conflict, NotFound, ValidationFailed } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import type { CreateEmpresaInput, Empresa, EmpresaSettings, UpdateEmpresaInput } from "./contracts.js"
import { traced } from "../tracing.js"

const duplicate = (constraint: string) =>
  constraint.includes("cnpj")
    ? new Conflict({
        code: "CNPJ_TAKEN",
        message:
          "cnpj: another empresa already holds this CNPJ, on its profile or registered for NFC-e, and a CNPJ " +
          "belongs to one empresa only; GET /nfce/cnpj-claims/{cnpj} says whose"
      })
    : new Conflict({ code: "ID_NAME_TAKEN", message: "Another empresa already uses this id_name" })

export class Empresas extends Effect.Service<Empresas>()("core/Empresas", {
  accessors: true,
  dependencies: [AuthCache.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const authCache = yield* AuthCache

    /**
     * The time zones Postgres knows, by lower-case name. Every local-calendar query runs `AT TIME
     * ZONE` in the database, so a zone Node accepts and Postgres does not (US/Pacific-New) would
     * break every metric of the empresa: the database's list is the rule. It changes only with a
     * Postgres upgrade, so it is read once per process.
     */
    let timeZones: ReadonlyMap<string, string> | undefined
    const knownTimeZones = Effect.suspend(() =>
      timeZones !== undefined
        ? Effect.succeed(timeZones)
        : sql<{ name: string }>`SELECT name FROM pg_timezone_names`.pipe(
            Effect.map((rows) => (timeZones = new Map(rows.map(({ name }) => [name.toLowerCase(), name]))))
          )
    )

    /**
     * Settings as stored: the time zone checked and spelled as the database spells it. `at` is where
     * the settings travelled in the request (the store profile sends its zone at the top level).
     */
    const checkedSettings = traced("Empresas.checkedSettings")(function* <S extends EmpresaSettings | undefined>(
      settings: S,
      at: ReadonlyArray<string> = ["body", "settings"]
    ) {
      if (settings?.timezone === undefined) return settings
      const timezone = (yield* knownTimeZones).get(settings.timezone.toLowerCase())
      if (timezone === undefined) {
        return yield* new ValidationFailed({
          issues: [
            {
              loc: [...at, "timezone"],
              msg: `Unknown time zone ${JSON.stringify(settings.timezone)}: use an IANA name such as America/Sao_Paulo`,
              type: "value_error"
            }
          ]
        })
      }
      return { ...settings, timezone }
    })

    const create = traced("Empresas.create")(function* (input: CreateEmpresaInput) {
      const settings = yield* checkedSettings(input.settings)
      const [row] = yield* sql<Empresa>`
        INSERT INTO empresas (name, id_name, cnpj, plan, api_access, settings)
        VALUES (${input.name}, ${input.id_name}, ${input.cnpj ?? null}, ${input.plan}, ${input.api_access},
                ${jsonb(settings)}::jsonb)
        RETURNING *`.pipe(onUniqueViolation(duplicate))
      return row!
    })

    const get = traced("Empresas.get")(function* (id: EmpresaId) {
      const [row] = yield* sql<Empresa>`SELECT * FROM empresas WHERE id = ${id}`
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id })
      return row
    })

    /** An empresa by UUID or by its public slug, as survey links and `--empresa` name it. */
    const resolve = traced("Empresas.resolve")(function* (ref: string) {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref)
      const [row] = isUuid
        ? yield* sql<Empresa>`SELECT * FROM empresas WHERE id = ${ref}`
        : yield* sql<Empresa>`SELECT * FROM empresas WHERE id_name = ${ref.toLowerCase()}`
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id: ref })
      return row
    })

    const update = traced("Empresas.update")(function* (input: UpdateEmpresaInput) {
      const { empresa_id, settings: requested, ...fields } = input
      const settings = yield* checkedSettings(requested)
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      const write = sql<Empresa>`
        UPDATE empresas SET
          ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
          settings = settings || ${jsonb(settings ?? {})}::jsonb,
          updated_at = now()
        WHERE id = ${empresa_id}
        RETURNING *`.pipe(onUniqueViolation(duplicate))
      // Cached authentications carry the plan's api_access: they must not outlive a change.
      const [row] = yield* input.api_access !== undefined ? write.pipe(authCache.empresaChange(empresa_id)) : write
      if (row === undefined) return yield* new NotFound({ resource: "Empresa", id: empresa_id })
      return row
    })

    return sqlErrorsAsDefects({ create, get, resolve, update, checkedSettings })
  })
}) {}
