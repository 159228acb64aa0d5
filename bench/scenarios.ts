import { offlineReceipts } from "./receipts.js"

/** One request of a scenario. */
interface Request {
  method: "GET" | "POST"
  path: string
  body?: string
  headers?: Record<string, string>
}

/** An operation, as Fidelis serves it and as the bare baseline does. */
export interface Scenario {
  readonly name: string
  /**
   * Concurrent connections; the analytics run one at a time, as a dashboard asks them, so their
   * p99 is the query's own latency rather than queueing behind nine others on two cores.
   */
  readonly connections?: number
  readonly fidelis: (i: number) => Request
  readonly baseline: (i: number) => Request
}

const SEARCHES = ["souza%2012345", "bench%2B4242%40", "ana%20lima%209", "119000777", "diego%20alves%2015"]
const search = (i: number) => SEARCHES[i % SEARCHES.length]!

/** A promoter's survey response; each its own key, since a repeated one is a 409 by design. */
const survey = (i: number) => ({
  method: "POST" as const,
  body: JSON.stringify({ response: { csat: 5, nps: 10 } }),
  headers: { "content-type": "application/json", "x-idempotency-key": `bench-${process.pid}-${Date.now()}-${i}` }
})

/** What the scenarios address: the seeded tenant's clients, and the end user's token and reward. */
export interface Targets {
  readonly clientIds: ReadonlyArray<string>
  readonly slug: string
  readonly rewardId: string
  readonly questId: string
  readonly token: string
}

/** The same analytic over a year: the longest window the API accepts, served by the rollups. */
const yearLong = (scenario: Scenario): Scenario => {
  const year = (make: Scenario["fidelis"]) => (i: number) => {
    const request = make(i)
    return { ...request, path: request.path.replace("days=30", "days=365") }
  }
  return {
    ...scenario,
    name: `${scenario.name}?days=365`,
    fidelis: year(scenario.fidelis),
    baseline: year(scenario.baseline)
  }
}

export const scenarios = ({ clientIds, slug, rewardId, questId, token }: Targets): Scenario[] => {
  const pick = (i: number) => clientIds[i % clientIds.length]!
  const asUser = { authorization: `Bearer ${token}`, "content-type": "application/json" }
  const receipt = offlineReceipts()
  const credit = (i: number) => ({
    method: "POST" as const,
    body: JSON.stringify({ client_id: pick(i), points: 5 }),
    headers: { "content-type": "application/json", "x-idempotency-key": `bench-${process.pid}-${Date.now()}-${i}` }
  })
  const list: Scenario[] = [
    {
      name: "get_client",
      fidelis: (i) => ({ method: "GET", path: `/api/v1/public/clients/${pick(i)}` }),
      baseline: (i) => ({ method: "GET", path: `/clients/${pick(i)}` })
    },
    {
      name: "credit_points",
      fidelis: (i) => ({ ...credit(i), path: "/api/v1/public/points/credit" }),
      baseline: (i) => ({ ...credit(i), path: "/points/credit" })
    },
    {
      name: "get_user_me",
      fidelis: () => ({ method: "GET", path: "/api/v1/users/me", headers: asUser }),
      baseline: () => ({ method: "GET", path: "/users/me" })
    },
    {
      name: "redeem_reward",
      fidelis: () => ({ method: "POST", path: `/api/v1/rewards/${rewardId}/redeem`, body: "{}", headers: asUser }),
      baseline: () => ({ method: "POST", path: `/rewards/${rewardId}/redeem` })
    },
    {
      name: "get_active_survey",
      fidelis: () => ({ method: "GET", path: `/api/v1/public/quests/${slug}/active` }),
      baseline: () => ({ method: "GET", path: `/quests/${slug}/active` })
    },
    {
      name: "submit_survey",
      fidelis: (i) => ({ ...survey(i), path: `/api/v1/public/quests/${slug}/${questId}/responses` }),
      baseline: (i) => ({ ...survey(i), path: `/quests/${slug}/${questId}/responses` })
    },
    {
      // A distinct offline receipt per request (offline QR codes carry their total: no state page).
      name: "nfce_decode_qr",
      fidelis: () => ({
        method: "POST",
        path: "/api/v1/nfce/decode-qr",
        body: JSON.stringify({ qr_code: receipt() }),
        headers: asUser
      }),
      baseline: () => ({
        method: "POST",
        path: "/nfce/decode-qr",
        body: JSON.stringify({ qr_code: receipt() }),
        headers: { "content-type": "application/json" }
      })
    },
    {
      // What support staff type: a name with its number, an email, a phone fragment.
      name: "list_clients?search",
      fidelis: (i) => ({ method: "GET", path: `/api/v1/public/clients?search=${search(i)}` }),
      baseline: (i) => ({ method: "GET", path: `/clients?search=${search(i)}` })
    },
    {
      name: "get_loyalty_card_metrics",
      connections: 1,
      fidelis: () => ({ method: "GET", path: "/api/v1/public/loyalty-cards/metrics?days=30" }),
      baseline: () => ({ method: "GET", path: "/loyalty-cards/metrics?days=30" })
    },
    ...(
      [
        ["get_metrics_overview", "/metrics/overview?days=30"],
        ["get_client_behavior", (i: number) => `/clients/${pick(i)}/behavior?days=30`],
        ["get_referral_performance", "/referral-performance?days=30"],
        ["get_referral_metrics", "/referrals/metrics?days=30"],
        ["get_quest_metrics", "/quests/metrics?days=30"],
        ["get_nfce_metrics", "/nfce/metrics?days=30"]
      ] as const
    ).map(([name, path]): Scenario => {
      const at = (i: number) => (typeof path === "string" ? path : path(i))
      return {
        name,
        connections: 1,
        fidelis: (i) => ({ method: "GET", path: `/api/v1/public${at(i)}` }),
        baseline: (i) => ({ method: "GET", path: at(i) })
      }
    })
  ]
  // Every analytic (they are the one-connection scenarios) again over the year.
  return [...list, ...list.filter((scenario) => scenario.connections === 1).map(yearLong)]
}
