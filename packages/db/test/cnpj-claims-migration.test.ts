import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { constraintOf, isUniqueViolation } from "../src/errors.js"
import { MIGRATIONS } from "../src/migrations/index.js"
import { createSharedDatabase } from "../src/testing.js"

const CLAIMS = "0032_cnpj_claims"

/** Runs the migrations in id order, from the first to `last` included, or those after `after`. */
const run = (range: { readonly last: string } | { readonly after: string }) =>
  Effect.forEach(
    Object.entries(MIGRATIONS)
      .toSorted(([a], [b]) => a.localeCompare(b))
      .filter(([name]) => ("last" in range ? name <= range.last : name > range.after)),
    ([, load]) => Effect.flatMap(Effect.promise(load), (module) => module.default),
    { discard: true }
  )

/** The database before 0032 (the migrations under its number), on PGlite or TEST_DATABASE_URL's server. */
const database = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => createSharedDatabase({ empty: true })),
      (db) => Effect.promise(() => db.drop())
    ),
    (db) => PgClient.layer({ url: Redacted.make(db.url), maxConnections: 1 })
  )
)

const before = Object.keys(MIGRATIONS)
  .filter((name) => name < CLAIMS)
  .at(-1)!

describe("migration 0032 (CNPJ claims) on existing data", () => {
  it.live(
    "the profile wins over another empresa's registration, which is kept aside; other registrations are unproven",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* run({ last: before })
        const empresa = (name: string, cnpj: string | null) =>
          sql<{ id: string }>`
            INSERT INTO empresas (name, id_name, cnpj) VALUES (${name}, ${name}, ${cnpj}) RETURNING id`.pipe(
            Effect.map(([row]) => row!.id)
          )
        // Two owners of X, as the review found them: P's profile, R's registration (with a CSC).
        const profile = yield* empresa("profile", "11222333000181")
        const registrant = yield* empresa("registrant", null)
        const other = yield* empresa("other", null)
        const both = yield* empresa("both", "11444777000161")
        yield* sql`
          INSERT INTO empresa_cnpjs (cnpj, empresa_id) VALUES
            ('11222333000181', ${registrant}), ('12ABC34501DE35', ${other}), ('11444777000161', ${both})`
        yield* sql`
          INSERT INTO nfce_cscs (empresa_id, cnpj, csc_id, token_sealed, token_hint)
          VALUES (${registrant}, '11222333000181', '1', 'sealed', '****89EF')`

        yield* run({ after: before })

        const claims = yield* sql<{ cnpj: string; empresa_id: string; proven_by: string | null }>`
          SELECT cnpj, empresa_id, proven_by FROM cnpj_claims ORDER BY cnpj`
        expect(claims).toEqual([
          { cnpj: "11222333000181", empresa_id: profile, proven_by: "profile" },
          { cnpj: "11444777000161", empresa_id: both, proven_by: "profile" },
          { cnpj: "12ABC34501DE35", empresa_id: other, proven_by: null }
        ])
        const registrations = yield* sql`SELECT cnpj, empresa_id FROM empresa_cnpjs ORDER BY cnpj`
        expect(registrations).toEqual([
          { cnpj: "11444777000161", empresa_id: both },
          { cnpj: "12ABC34501DE35", empresa_id: other }
        ])
        const dropped = yield* sql`SELECT cnpj, empresa_id, reason FROM empresa_cnpjs_dropped`
        expect(dropped).toEqual([
          { cnpj: "11222333000181", empresa_id: registrant, reason: expect.stringContaining("profile") }
        ])
        expect(yield* sql`SELECT 1 FROM nfce_cscs`).toEqual([])

        // From now on the second owner is refused by the database itself, on the claims' key.
        const refused = yield* Effect.flip(
          sql`INSERT INTO empresa_cnpjs (cnpj, empresa_id) VALUES ('11222333000181', ${registrant})`
        )
        expect(isUniqueViolation(refused)).toBe(true)
        expect(constraintOf(refused)).toBe("cnpj_claims_pkey")
      }).pipe(Effect.provide(database)),
    120_000
  )
})
