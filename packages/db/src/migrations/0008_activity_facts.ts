import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Facts that later areas write (end-user redemptions, referrals, public survey responses, NFC-e
 * invoices) and the metrics read now. Each is tenant-keyed and indexed by time for period queries.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE redemptions (
      empresa_id    uuid NOT NULL REFERENCES empresas (id),
      id            uuid NOT NULL DEFAULT gen_random_uuid(),
      reward_id     uuid NOT NULL,
      client_id     uuid NOT NULL,
      code          text NOT NULL,
      quantity      integer NOT NULL DEFAULT 1 CHECK (quantity > 0),
      points_spent  integer NOT NULL CHECK (points_spent >= 0),
      status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'validated', 'expired', 'cancelled')),
      notes         text,
      expires_at    timestamptz NOT NULL,
      validated_at  timestamptz,
      cancelled_at  timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      UNIQUE (empresa_id, code),
      FOREIGN KEY (empresa_id, reward_id) REFERENCES rewards (empresa_id, id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id)
    )`
  yield* sql`CREATE INDEX redemptions_recent_idx ON redemptions (empresa_id, created_at)`
  yield* sql`CREATE INDEX redemptions_client_idx ON redemptions (empresa_id, client_id, created_at)`

  // A referral is made through a store's link, so it belongs to that empresa from the start.
  yield* sql`
    CREATE TABLE referrals (
      empresa_id          uuid NOT NULL REFERENCES empresas (id),
      id                  uuid NOT NULL DEFAULT gen_random_uuid(),
      referrer_user_id    uuid NOT NULL REFERENCES users (id),
      referred_user_id    uuid NOT NULL REFERENCES users (id),
      referrer_client_id  uuid,
      referred_client_id  uuid,
      status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed')),
      campaign_id         uuid,
      referrer_bonus      integer CHECK (referrer_bonus >= 0),
      referred_bonus      integer CHECK (referred_bonus >= 0),
      created_at          timestamptz NOT NULL DEFAULT now(),
      completed_at        timestamptz,
      PRIMARY KEY (empresa_id, id),
      UNIQUE (empresa_id, referred_user_id),
      CHECK (referrer_user_id <> referred_user_id),
      CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
      FOREIGN KEY (empresa_id, referrer_client_id) REFERENCES clients (empresa_id, id),
      FOREIGN KEY (empresa_id, referred_client_id) REFERENCES clients (empresa_id, id),
      FOREIGN KEY (empresa_id, campaign_id) REFERENCES referral_campaigns (empresa_id, id)
    )`
  yield* sql`CREATE INDEX referrals_recent_idx ON referrals (empresa_id, created_at)`
  yield* sql`CREATE INDEX referrals_referrer_idx ON referrals (empresa_id, referrer_client_id, created_at)`

  // csat and nps are lifted out of the answers when the survey has those questions.
  yield* sql`
    CREATE TABLE quest_responses (
      empresa_id            uuid NOT NULL,
      id                    uuid NOT NULL DEFAULT gen_random_uuid(),
      quest_id              uuid NOT NULL,
      answers               jsonb NOT NULL,
      csat                  smallint CHECK (csat BETWEEN 1 AND 5),
      nps                   smallint CHECK (nps BETWEEN 0 AND 10),
      client_name           text CHECK (length(client_name) <= 120),
      client_phone          text CHECK (client_phone ~ '^[0-9]{10,13}$'),
      contact_at            timestamptz,
      cta_review_enabled    boolean NOT NULL DEFAULT false,
      low_score_alert_sent  boolean NOT NULL DEFAULT false,
      created_at            timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, quest_id) REFERENCES quests (empresa_id, id)
    )`
  yield* sql`CREATE INDEX quest_responses_recent_idx ON quest_responses (empresa_id, created_at)`
  yield* sql`CREATE INDEX quest_responses_quest_idx ON quest_responses (empresa_id, quest_id, created_at)`

  // One access key credits at most once, whoever scans it (docs/architecture.md, "NFC-e").
  yield* sql`
    CREATE TABLE nfce_invoices (
      empresa_id       uuid NOT NULL REFERENCES empresas (id),
      id               uuid NOT NULL DEFAULT gen_random_uuid(),
      access_key       text NOT NULL CHECK (access_key ~ '^[0-9]{44}$'),
      user_id          uuid REFERENCES users (id),
      client_id        uuid,
      status           text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'failed')),
      progress         smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      message          text,
      valor_total      numeric(12, 2) CHECK (valor_total >= 0),
      items_count      integer CHECK (items_count >= 0),
      points_credited  integer CHECK (points_credited >= 0),
      issued_at        timestamptz,
      created_at       timestamptz NOT NULL DEFAULT now(),
      completed_at     timestamptz,
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id)
    )`
  yield* sql`CREATE UNIQUE INDEX nfce_invoices_access_key ON nfce_invoices (access_key)`
  yield* sql`CREATE INDEX nfce_invoices_recent_idx ON nfce_invoices (empresa_id, created_at)`
  yield* sql`CREATE INDEX nfce_invoices_client_idx ON nfce_invoices (empresa_id, client_id, created_at)`
})
