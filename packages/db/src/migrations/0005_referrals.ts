import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Referral campaigns: the bonuses a store pays both sides of a referral while a campaign runs.
 * At most one active campaign may cover any instant (the referral flow pays "the" running
 * campaign); the service enforces that under a per-empresa lock, since an exclusion constraint
 * would need btree_gist, which the embedded database does not load.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE referral_campaigns (
      empresa_id      uuid NOT NULL REFERENCES empresas (id),
      id              uuid NOT NULL DEFAULT gen_random_uuid(),
      name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      referrer_bonus  integer NOT NULL CHECK (referrer_bonus >= 0),
      referred_bonus  integer NOT NULL CHECK (referred_bonus >= 0),
      starts_at       timestamptz NOT NULL,
      ends_at         timestamptz,
      active          boolean NOT NULL DEFAULT true,
      created_at      timestamptz NOT NULL DEFAULT now(),
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      CONSTRAINT referral_campaigns_window_check CHECK (ends_at IS NULL OR ends_at > starts_at)
    )`
  yield* sql`CREATE INDEX referral_campaigns_recent_idx ON referral_campaigns (empresa_id, created_at DESC, id DESC)`
  // The overlap check and runningCampaign look only at active campaigns, by window.
  yield* sql`CREATE INDEX referral_campaigns_window_idx ON referral_campaigns (empresa_id, starts_at) WHERE active`
})
