import { SqlClient } from "@effect/sql"
import { jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Clock, Effect } from "effect"
import { settingsOf } from "../empresas/contracts.js"
import { Empresas } from "../empresas/service.js"
import { NotFound } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import type { GetStoreInput, ListStoresInput, StoreProfile, StoreProfileInput } from "./contracts.js"
import { isOpenAt, type BusinessHours } from "./hours.js"
import { traced } from "../tracing.js"

interface ProfileRow {
  readonly id: EmpresaId
  readonly name: string
  readonly description: string | null
  readonly category: string | null
  readonly address: string | null
  readonly phone: string | null
  readonly instagram: string | null
  readonly business_hours: BusinessHours
  readonly settings: Record<string, unknown>
  readonly updated_at: string
}

const PROFILE_COLUMNS =
  "id, name, description, category, address, phone, instagram, business_hours, settings, updated_at"

/** The row as the API shows it: time zone and logo come from the settings, defaults filled in. */
const profileOf = ({ settings, ...row }: ProfileRow): StoreProfile => {
  const { timezone, logo_url } = settingsOf({ settings })
  return { ...row, timezone, logo_url }
}

/** The instant asked for, else the Clock's now (a TestClock in tests). */
const instantOf = (at: string | undefined) =>
  at === undefined ? Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms)) : Effect.succeed(new Date(at))

/**
 * Stores (a store IS an empresa: docs/architecture.md, "Tenancy and identity"): the public profile a
 * company sets, and what end users read of it. `is_open` is computed at the instant asked for, else at
 * the service's Clock, so tests fix the time.
 */
export class Stores extends Effect.Service<Stores>()("core/Stores", {
  accessors: true,
  dependencies: [Empresas.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const empresas = yield* Empresas
    const columns = sql.literal(PROFILE_COLUMNS)

    const find = (id: EmpresaId) =>
      Effect.gen(function* () {
        const [row] = yield* sql<ProfileRow>`SELECT ${columns} FROM empresas WHERE id = ${id}`
        if (row === undefined) return yield* new NotFound({ resource: "Store", id })
        return profileOf(row)
      })

    const profile = traced("Stores.profile")(function* (empresaId: EmpresaId) {
      return yield* find(empresaId)
    })

    /** Sent fields change, absent ones stay, null clears; hours replace the whole week. */
    const updateProfile = traced("Stores.updateProfile")(function* (empresaId: EmpresaId, input: StoreProfileInput) {
      const { timezone, logo_url, business_hours, ...fields } = input
      const settings = yield* empresas.checkedSettings(
        {
          ...(timezone !== undefined && { timezone }),
          ...(logo_url !== undefined && logo_url !== null && { logo_url })
        },
        ["body"]
      )
      const days = business_hours && Object.fromEntries(Object.entries(business_hours).filter(([, day]) => day))
      const set = {
        ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        ...(days !== undefined && { business_hours: jsonb(days) })
      }
      const merged = sql`settings || ${jsonb(settings ?? {})}::jsonb`
      const [row] = yield* sql<ProfileRow>`
        UPDATE empresas SET
          ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
          settings = ${logo_url === null ? sql`(${merged}) - 'logo_url'` : merged},
          updated_at = now()
        WHERE id = ${empresaId}
        RETURNING ${columns}`
      if (row === undefined) return yield* new NotFound({ resource: "Store", id: empresaId })
      return profileOf(row)
    })

    /** Every store, by name; `is_open` for each at one instant. */
    const list = traced("Stores.list")(function* (input: ListStoresInput) {
      const instant = yield* instantOf(input.at)
      const rows = yield* sql<ProfileRow & { total: number }>`
        SELECT ${columns}, count(*) OVER ()::int AS total FROM empresas
        ORDER BY lower(name), id
        LIMIT ${input.limit} OFFSET ${(input.page - 1) * input.limit}`
      const total =
        rows[0]?.total ??
        (input.page > 1 ? (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM empresas`)[0]!.n : 0)
      const stores = rows.map((row) => {
        const store = profileOf(row)
        const is_open = isOpenAt(store.business_hours, store.timezone, instant)
        return { id: store.id, name: store.name, logo_url: store.logo_url, category: store.category, is_open }
      })
      return { stores, total, page: input.page, limit: input.limit }
    })

    const get = traced("Stores.get")(function* (input: GetStoreInput) {
      const instant = yield* instantOf(input.at)
      const store = yield* find(input.store_id)
      return { ...store, is_open: isOpenAt(store.business_hours, store.timezone, instant) }
    })

    return sqlErrorsAsDefects({ profile, updateProfile, list, get })
  })
}) {}
