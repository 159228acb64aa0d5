import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ApiKeys } from "./auth/service.js"
import { Clients } from "./clients/service.js"
import { Empresas } from "./empresas/service.js"
import { Points } from "./points/service.js"

const DEMO_CLIENTS = [
  { nome: "Ana Souza", email: "ana.souza@example.com", telefone: "+55 11 91234-5678", points: 120 },
  { nome: "Bruno Lima", email: "bruno.lima@example.com", telefone: "+55 21 99876-5432", points: 45 },
  { nome: "Carla Mendes", email: "carla.mendes@example.com", points: 300 },
  { nome: "Diego Alves", points: 0 }
] as const

/**
 * On an empty database, creates a demo empresa with a few clients and a company API key, so the
 * first `npm start` has something to call. Returns the key (shown once) or nothing when the
 * database already has data.
 */
export const seedDemoIfEmpty = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [existing] = yield* sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM empresas) AS any`
  if (existing?.any) return undefined
  const empresa = yield* Empresas.create({
    name: "Café Fidelis (demo)",
    id_name: "demo",
    plan: "demo",
    api_access: true,
    settings: { timezone: "America/Sao_Paulo", point_value: 0.05 }
  })
  for (const { points, ...client } of DEMO_CLIENTS) {
    const created = yield* Clients.create(empresa.id, {
      ...client,
      telefone: "telefone" in client ? `+${client.telefone.replace(/\D/g, "")}` : undefined
    })
    if (points > 0)
      yield* Points.credit(empresa.id, {
        client_id: created.id,
        points,
        source: "purchase",
        description: "Welcome points"
      })
  }
  const key = yield* ApiKeys.create(empresa.id, { name: "Demo key", scope: "empresa" })
  return { empresa, key: key.key }
}).pipe(Effect.withSpan("demo.seed"))

/** Readiness: the database answers. */
export const databaseReady = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(Effect.asVoid)
