import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Foundation schema. Every tenant table leads its primary key with `empresa_id` (the Citus
 * distribution column), so each query is scoped by an index prefix and the schema can be sharded
 * without rewriting keys.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE empresas (
      id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      id_name     text NOT NULL UNIQUE CHECK (id_name ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
      cnpj        text UNIQUE CHECK (cnpj ~ '^[0-9]{14}$'),
      plan        text NOT NULL DEFAULT 'free',
      api_access  boolean NOT NULL DEFAULT true,
      settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`
    CREATE TABLE api_keys (
      id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      empresa_id   uuid NOT NULL REFERENCES empresas (id),
      name         text NOT NULL,
      scope        text NOT NULL CHECK (scope IN ('empresa', 'admin')),
      prefix       text NOT NULL,
      key_hash     text NOT NULL UNIQUE,
      created_at   timestamptz NOT NULL DEFAULT now(),
      revoked_at   timestamptz,
      last_used_at timestamptz
    )`
  yield* sql`CREATE INDEX api_keys_empresa_idx ON api_keys (empresa_id, created_at DESC)`

  // End-user accounts are global; a client row links one to one empresa (docs/architecture.md, "Tenancy and identity").
  yield* sql`
    CREATE TABLE users (
      id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email          text NOT NULL,
      nome           text NOT NULL,
      telefone       text,
      cpf            text,
      password_hash  text,
      referral_code  text NOT NULL UNIQUE,
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`

  yield* sql`
    CREATE TABLE clients (
      empresa_id       uuid NOT NULL REFERENCES empresas (id),
      id               uuid NOT NULL DEFAULT gen_random_uuid(),
      user_id          uuid NOT NULL REFERENCES users (id),
      nome             text NOT NULL,
      email            text,
      telefone         text,
      cpf              text,
      balance          bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
      cashback_balance numeric(14, 2) NOT NULL DEFAULT 0 CHECK (cashback_balance >= 0),
      total_earned     bigint NOT NULL DEFAULT 0,
      total_spent      bigint NOT NULL DEFAULT 0,
      created_at       timestamptz NOT NULL DEFAULT now(),
      updated_at       timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      UNIQUE (empresa_id, user_id)
    )`
  yield* sql`CREATE INDEX clients_recent_idx ON clients (empresa_id, created_at DESC, id)`
  yield* sql`CREATE UNIQUE INDEX clients_email_key ON clients (empresa_id, lower(email)) WHERE email IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX clients_cpf_key ON clients (empresa_id, cpf) WHERE cpf IS NOT NULL`

  // Append-only: the cached balance on clients changes in the same transaction as each row here.
  yield* sql`
    CREATE TABLE points_ledger (
      empresa_id     uuid NOT NULL,
      id             uuid NOT NULL DEFAULT gen_random_uuid(),
      client_id      uuid NOT NULL,
      kind           text NOT NULL CHECK (kind IN ('credit', 'spend', 'refund', 'expire', 'adjust')),
      points         bigint NOT NULL,
      cashback       numeric(14, 2) NOT NULL DEFAULT 0,
      balance_after  bigint NOT NULL CHECK (balance_after >= 0),
      source         text,
      description    text,
      created_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id)
    )`
  yield* sql`CREATE INDEX points_ledger_client_idx ON points_ledger (empresa_id, client_id, created_at DESC)`

  yield* sql`
    CREATE TABLE activity_events (
      empresa_id   uuid NOT NULL,
      id           uuid NOT NULL DEFAULT gen_random_uuid(),
      client_id    uuid NOT NULL,
      type         text NOT NULL CHECK (type IN ('purchase', 'reward', 'referral', 'interaction')),
      title        text NOT NULL,
      description  text,
      points       bigint NOT NULL DEFAULT 0,
      metadata     jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id)
    )`
  // clock_timestamp(): several events written in one transaction still order as they happened.
  yield* sql`CREATE INDEX activity_events_client_idx ON activity_events (empresa_id, client_id, created_at DESC)`

  // The stored response is written in the same transaction as the effect it records.
  yield* sql`
    CREATE TABLE idempotency_keys (
      empresa_id   uuid NOT NULL,
      operation    text NOT NULL,
      key          text NOT NULL,
      fingerprint  text NOT NULL,
      response     jsonb NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      expires_at   timestamptz NOT NULL,
      PRIMARY KEY (empresa_id, operation, key)
    )`
  yield* sql`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`

  // Fixed one-minute windows shared by every server process on the database. Unlogged: counters
  // need no crash safety, and skipping the WAL keeps the per-request upsert cheap.
  yield* sql`
    CREATE UNLOGGED TABLE rate_limit_counters (
      bucket        text NOT NULL,
      window_start  timestamptz NOT NULL,
      count         integer NOT NULL,
      PRIMARY KEY (bucket, window_start)
    )`
})
