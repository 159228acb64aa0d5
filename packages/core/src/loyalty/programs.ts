import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { NotFound } from "../errors.js"
import type { EmpresaId } from "../ids.js"
import type { CreateProgramInput, ListProgramsInput, LoyaltyProgram, UpdateProgramInput } from "./contracts.js"
import { traced } from "../tracing.js"

const PROGRAM_COLUMNS = "id, name, stamps_required, reward_description, image_url, active, created_at, updated_at"

/** Stamp-card definitions. Cards copy `stamps_required` when issued, so edits never move a goal. */
export class LoyaltyPrograms extends Effect.Service<LoyaltyPrograms>()("core/LoyaltyPrograms", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(PROGRAM_COLUMNS)

    const list = traced("LoyaltyPrograms.list")(function* (empresaId: EmpresaId, input: ListProgramsInput) {
      const rows = yield* sql<LoyaltyProgram>`
        SELECT ${columns} FROM loyalty_programs
        WHERE empresa_id = ${empresaId} ${input.active === undefined ? sql`` : sql`AND active = ${input.active}`}
        ORDER BY created_at, id`
      return [...rows]
    })

    const create = traced("LoyaltyPrograms.create")(function* (empresaId: EmpresaId, input: CreateProgramInput) {
      const [row] = yield* sql<LoyaltyProgram>`
        INSERT INTO loyalty_programs (empresa_id, name, stamps_required, reward_description, image_url, active)
        VALUES (${empresaId}, ${input.name}, ${input.stamps_required}, ${input.reward_description},
                ${input.image_url ?? null}, ${input.active})
        RETURNING ${columns}`
      return row!
    })

    const update = traced("LoyaltyPrograms.update")(function* (empresaId: EmpresaId, input: UpdateProgramInput) {
      const { program_id, ...fields } = input
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      const [row] = yield* sql<LoyaltyProgram>`
        UPDATE loyalty_programs SET
          ${Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``}
          updated_at = now()
        WHERE empresa_id = ${empresaId} AND id = ${program_id}
        RETURNING ${columns}`
      if (row === undefined) return yield* new NotFound({ resource: "Loyalty program", id: program_id })
      return row
    })

    return sqlErrorsAsDefects({ list, create, update })
  })
}) {}
