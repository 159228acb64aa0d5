import { SqlClient } from "@effect/sql"
import { testDatabaseConfig } from "@fidelis/db/testing"
import { Effect, Layer, LogLevel } from "effect"
import { Clients } from "../src/clients/service.js"
import { configFromEnv } from "../src/config.js"
import type { EmpresaSettings } from "../src/empresas/contracts.js"
import { Empresas } from "../src/empresas/service.js"
import type { EmpresaId } from "../src/ids.js"
import type { CreateProductInput } from "../src/products/contracts.js"
import { Products } from "../src/products/service.js"
import type { CreateQuestInput } from "../src/quests/contracts.js"
import { coreLayer } from "../src/runtime.js"

/**
 * Core services on a throwaway database (in-memory PGlite, or a fresh one on TEST_DATABASE_URL's
 * server), configured by `env` as the server reads its environment.
 */
export const testCore = (env: Record<string, string> = {}) =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => testDatabaseConfig()),
        (database) => Effect.promise(() => database.drop())
      ),
      (database) =>
        coreLayer(
          { ...configFromEnv(env), databaseUrl: database.url, dataDir: database.dataDir },
          { logLevel: LogLevel.None }
        )
    )
  )

/** Core services with the default configuration. */
export const TestCore = testCore()

/**
 * A fresh empresa on the free plan, with API access. Suspended so that every run draws its own
 * `id_name`: the tests of one file share a database.
 */
export const newEmpresa = (options: { readonly name?: string; readonly settings?: EmpresaSettings } = {}) =>
  Effect.suspend(() =>
    Empresas.create({
      name: options.name ?? "Empresa de teste",
      id_name: `test-${Math.random().toString(36).slice(2, 10)}`,
      plan: "free",
      api_access: true,
      settings: options.settings ?? {}
    })
  )

/** A client and the user behind it (referrals and invoices point at the user). */
export const newClient = (empresaId: EmpresaId, nome: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const client = yield* Clients.create(empresaId, { nome })
    const [row] = yield* sql<{
      user_id: string
    }>`SELECT user_id FROM clients WHERE empresa_id = ${empresaId} AND id = ${client.id}`
    return { id: client.id, userId: row!.user_id, nome }
  })

/** An active "Café" for 100 points, unlimited unless `fields` say otherwise. */
export const newProduct = (empresaId: EmpresaId, fields: Partial<CreateProductInput> = {}) =>
  Products.create(empresaId, { name: "Café", points_cost: 100, active: true, ...fields })

/** A custom survey's input: one required 1..5 rating, active and public, no review prompt. */
export const customQuest = (name: string, overrides: Partial<CreateQuestInput> = {}): CreateQuestInput => ({
  name,
  description: "",
  survey_type: "custom",
  research: { fields: [{ id: "nota", type: "rating", label: "Nota", required: true, min: 1, max: 5 }] },
  cta_review_on_promoter: false,
  is_public: true,
  active: true,
  ...overrides
})
