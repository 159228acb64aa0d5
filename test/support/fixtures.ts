import { call, type Tenant } from "./http.js"
import type { TestServer } from "./server.js"

/**
 * Records a test sets up through the company API, as an integrator would. Each maker fails loudly
 * when the API refuses, so a broken setup never reads as a failed assertion further down, and
 * returns the record as the API answered it (typed loosely: tests read the fields they need).
 */

type Body = Record<string, unknown>
/** A record as the API returned it. */
export type ApiRecord = { readonly id: string } & Record<string, any>

const send = async (
  server: TestServer,
  tenant: Tenant,
  path: string,
  body: unknown,
  expected: number,
  method?: string
) => {
  const res = await call(server, `/api/v1/public${path}`, {
    key: tenant.key,
    body,
    ...(method === undefined ? {} : { method })
  })
  if (res.status !== expected) throw new Error(`${method ?? "POST"} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Defaults: "Café expresso" for 120 points; no description, price or stock limit. */
export const createProduct = (server: TestServer, tenant: Tenant, body: Body = {}): Promise<ApiRecord> =>
  send(server, tenant, "/products", { name: "Café expresso", points_cost: 120, ...body }, 201)

/** `product_id` is required; the rest defaults as the API does. */
export const createReward = (server: TestServer, tenant: Tenant, body: Body): Promise<ApiRecord> =>
  send(server, tenant, "/rewards", body, 201)

/** Defaults: "Cartão Café", 8 stamps, "Um café grátis". */
export const createProgram = (server: TestServer, tenant: Tenant, body: Body = {}): Promise<ApiRecord> =>
  send(
    server,
    tenant,
    "/loyalty-cards/programs",
    { name: "Cartão Café", stamps_required: 8, reward_description: "Um café grátis", ...body },
    201
  )

export const issueCard = (
  server: TestServer,
  tenant: Tenant,
  clientId: string,
  programId: string
): Promise<ApiRecord> => send(server, tenant, "/loyalty-cards", { client_id: clientId, program_id: programId }, 201)

/** The stamp's progress record; an empty body stamps once. */
export const stampCard = (server: TestServer, tenant: Tenant, cardId: string, body: Body = {}) =>
  send(server, tenant, `/loyalty-cards/${cardId}/stamp`, body, 200)

/** `{claimed_card, next_card}`. */
export const claimCard = (server: TestServer, tenant: Tenant, cardId: string) =>
  send(server, tenant, `/loyalty-cards/${cardId}/claim`, {}, 200)

/** The credit record (`balance`, `credited`, `transaction_id`); `extra` adds source, description and the like. */
export const creditPoints = (server: TestServer, tenant: Tenant, clientId: string, points: number, extra: Body = {}) =>
  send(server, tenant, "/points/credit", { client_id: clientId, points, ...extra }, 200)

export const generateCoupon = (server: TestServer, tenant: Tenant, body: Body): Promise<ApiRecord> =>
  send(server, tenant, "/coupons/generate", body, 201)

export const useCoupon = (server: TestServer, tenant: Tenant, uid: string): Promise<ApiRecord> =>
  send(server, tenant, `/coupons/${uid}/use`, {}, 200, "PATCH")

export const createCampaign = (server: TestServer, tenant: Tenant, body: Body): Promise<ApiRecord> =>
  send(server, tenant, "/referrals/campaigns", body, 201)

/** The questions of every empresa's default `standard_csat_nps` survey, as the API shows them. */
export const DEFAULT_SURVEY_FIELDS = [
  { id: "csat", type: "rating", label: "Como você avalia sua experiência?", required: true, min: 1, max: 5 },
  {
    id: "nps",
    type: "rating",
    label: "De 0 a 10, o quanto você nos recomendaria a um amigo?",
    required: true,
    min: 0,
    max: 10
  },
  { id: "comment", type: "text", label: "Quer deixar um comentário?", required: false }
]

export const createQuest = (server: TestServer, tenant: Tenant, body: Body): Promise<ApiRecord> =>
  send(server, tenant, "/quests", body, 201)

/** Changes the tenant's settings through the admin API (merged key by key). */
export const updateSettings = async (server: TestServer, tenant: Tenant, settings: Body) => {
  const res = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
    method: "PATCH",
    key: server.adminKey,
    body: { settings }
  })
  if (res.status !== 200) throw new Error(`update settings: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as ApiRecord
}

/** A product's stock as the company API shows it (null: unlimited). */
export const stockOf = async (server: TestServer, tenant: Tenant, productId: string) =>
  (await call(server, `/api/v1/public/products/${productId}`, { key: tenant.key })).body.stock as number | null

export const balanceOf = async (server: TestServer, tenant: Tenant, clientId: string) =>
  (await call(server, `/api/v1/public/points/${clientId}`, { key: tenant.key })).body.balance as number

export interface TimelinePage {
  readonly total: number
  readonly data: Array<
    { type: string; title: string; description: string | null; points: number; metadata: Record<string, any> } & Record<
      string,
      any
    >
  >
}

/** One page of the client's timeline, newest first; `query` filters it (`?category=reward`). */
export const timelineOf = async (server: TestServer, tenant: Tenant, clientId: string, query = "") =>
  (await call(server, `/api/v1/public/clients/${clientId}/timeline${query}`, { key: tenant.key })).body as TimelinePage
