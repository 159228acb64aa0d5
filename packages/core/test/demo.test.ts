import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedDemoIfEmpty } from "../src/demo.js"
import { TestCore } from "./support.js"

const TABLES = [
  "clients",
  "points_ledger",
  "activity_events",
  "products",
  "rewards",
  "loyalty_programs",
  "loyalty_cards",
  "loyalty_stamps",
  "coupons",
  "redemptions",
  "referral_campaigns",
  "referrals",
  "quests",
  "quest_responses",
  "nfce_invoices",
  "api_keys"
] as const

const counts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* Effect.forEach(TABLES, (table) =>
    Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`, ([row]) => [table, row!.n] as const)
  )
  return Object.fromEntries(rows)
})

layer(TestCore, { timeout: 120_000 })("the demo tenant", (it) => {
  it.effect("is seeded once, with every kind of fact, and a second start adds nothing", () =>
    Effect.gen(function* () {
      const started = performance.now()
      const demo = yield* seedDemoIfEmpty
      console.info(`demo seed: ${Math.round(performance.now() - started)} ms`)
      expect(demo?.empresa.id_name).toBe("demo")
      expect(demo?.key).toMatch(/^fid_/)
      const first = yield* counts
      for (const table of TABLES) expect(first[table], table).toBeGreaterThan(0)

      expect(yield* seedDemoIfEmpty).toBeUndefined()
      expect(yield* counts).toEqual(first)
    })
  )

  it.effect("tells a settled history: spread over weeks, nothing in the future, balances that match the ledger", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [span] = yield* sql<{ days: number; future: number; mismatched: number; stale: number }>`
        SELECT
          (SELECT count(DISTINCT date_trunc('day', created_at))::int FROM points_ledger) AS days,
          (SELECT count(*)::int FROM activity_events WHERE created_at > now())
            + (SELECT count(*)::int FROM loyalty_cards WHERE created_at > now() OR completed_at > now())
            + (SELECT count(*)::int FROM coupons WHERE created_at > now() OR used_at > now())
            + (SELECT count(*)::int FROM quest_responses WHERE created_at > now())
            + (SELECT count(*)::int FROM nfce_invoices WHERE created_at > now()) AS future,
          (SELECT count(*)::int FROM clients c
           WHERE c.balance <> (SELECT coalesce(sum(points), 0) FROM points_ledger l
                               WHERE l.empresa_id = c.empresa_id AND l.client_id = c.id)) AS mismatched,
          (SELECT count(*)::int FROM client_activity a
           WHERE a.last_active_at <> (SELECT max(created_at) FROM activity_events e
                                      WHERE e.empresa_id = a.empresa_id AND e.client_id = a.client_id)) AS stale`
      expect(span!.days).toBeGreaterThanOrEqual(10)
      expect(span!.future).toBe(0)
      expect(span!.mismatched).toBe(0)
      expect(span!.stale).toBe(0)

      // Each stamp happened after its card was issued, each completion after the card's last stamp.
      const [order] = yield* sql<{ misplaced: number }>`
        SELECT count(*)::int AS misplaced FROM loyalty_stamps s
        JOIN loyalty_cards c ON c.empresa_id = s.empresa_id AND c.id = s.card_id
        WHERE s.created_at < c.created_at OR (c.completed_at IS NOT NULL AND s.created_at > c.completed_at)`
      expect(order!.misplaced).toBe(0)
    })
  )

  it.effect("holds what the services make: redemptions name their product, referrals were paid by a purchase", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // What the counter hands over, and each redemption's own events (redeemed, and validated).
      const redemptions = yield* sql<{ product_name: string; product: string; status: string; events: number }>`
        SELECT r.product_name, p.name AS product, r.status,
               (SELECT count(*)::int FROM activity_events e
                WHERE e.empresa_id = r.empresa_id AND e.client_id = r.client_id
                  AND e.metadata ->> 'redemption_id' = r.id::text) AS events
        FROM redemptions r
        JOIN rewards w ON w.empresa_id = r.empresa_id AND w.id = r.reward_id
        JOIN products p ON p.empresa_id = w.empresa_id AND p.id = w.product_id
        ORDER BY r.created_at`
      expect(redemptions).toEqual([
        { product_name: "Caneca Fidelis", product: "Caneca Fidelis", status: "validated", events: 2 },
        { product_name: "Café expresso", product: "Café expresso", status: "pending", events: 1 }
      ])

      // A referral row is the one its completion writes, with the campaign's bonuses credited to both
      // sides under its id; the referrals no purchase completed yet wait on the referred accounts.
      const referrals = yield* sql<{ status: string; bonuses: number; referrer: number; referred: number }>`
        SELECT r.status, r.referrer_bonus + r.referred_bonus AS bonuses,
               (SELECT sum(e.points)::int FROM activity_events e
                WHERE e.empresa_id = r.empresa_id AND e.client_id = r.referrer_client_id
                  AND e.metadata ->> 'referral_id' = r.id::text) AS referrer,
               (SELECT sum(e.points)::int FROM activity_events e
                WHERE e.empresa_id = r.empresa_id AND e.client_id = r.referred_client_id
                  AND e.metadata ->> 'referral_id' = r.id::text) AS referred
        FROM referrals r ORDER BY r.completed_at`
      expect(referrals).toEqual([
        { status: "completed", bonuses: 75, referrer: 50, referred: 25 },
        { status: "completed", bonuses: 75, referrer: 50, referred: 25 }
      ])
      const [waiting] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM users WHERE pending_referral_code IS NOT NULL AND referral_completed_at IS NULL`
      expect(waiting!.n).toBe(2)
    })
  )
})
