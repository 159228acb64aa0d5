import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Stamp cards: programs (card definitions), the cards issued to clients (progress rows) and an
 * append-only log of stamps that period metrics aggregate.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE loyalty_programs (
      empresa_id          uuid NOT NULL REFERENCES empresas (id),
      id                  uuid NOT NULL DEFAULT gen_random_uuid(),
      name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      stamps_required     integer NOT NULL CHECK (stamps_required BETWEEN 1 AND 100),
      reward_description  text NOT NULL CHECK (length(reward_description) BETWEEN 1 AND 500),
      image_url           text,
      active              boolean NOT NULL DEFAULT true,
      created_at          timestamptz NOT NULL DEFAULT now(),
      updated_at          timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id)
    )`
  yield* sql`CREATE INDEX loyalty_programs_listing_idx ON loyalty_programs (empresa_id, active, created_at)`

  // max_stamps is copied from the program at issue time, so editing a program never moves the
  // goal of a card a client is already filling. The status columns must agree with the counters.
  yield* sql`
    CREATE TABLE loyalty_cards (
      empresa_id    uuid NOT NULL,
      id            uuid NOT NULL DEFAULT gen_random_uuid(),
      client_id     uuid NOT NULL,
      program_id    uuid NOT NULL,
      stamps        integer NOT NULL DEFAULT 0,
      max_stamps    integer NOT NULL CHECK (max_stamps >= 1),
      status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'claimed')),
      completed_at  timestamptz,
      claimed_at    timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id),
      FOREIGN KEY (empresa_id, program_id) REFERENCES loyalty_programs (empresa_id, id),
      -- Target of the stamp log's foreign key: its denormalized client and program must match.
      UNIQUE (empresa_id, id, client_id, program_id),
      CONSTRAINT loyalty_cards_stamps_range CHECK (stamps BETWEEN 0 AND max_stamps),
      CONSTRAINT loyalty_cards_completion CHECK ((stamps = max_stamps) = (status <> 'active')),
      CONSTRAINT loyalty_cards_completed_at CHECK ((completed_at IS NOT NULL) = (status <> 'active')),
      CONSTRAINT loyalty_cards_claimed_at CHECK ((claimed_at IS NOT NULL) = (status = 'claimed'))
    )`
  // One open (not yet claimed) card per client and program: issuing a second is a conflict.
  yield* sql`
    CREATE UNIQUE INDEX loyalty_cards_open_key ON loyalty_cards (empresa_id, client_id, program_id)
    WHERE status <> 'claimed'`
  yield* sql`CREATE INDEX loyalty_cards_recent_idx ON loyalty_cards (empresa_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX loyalty_cards_client_idx ON loyalty_cards (empresa_id, client_id, created_at DESC)`
  yield* sql`CREATE INDEX loyalty_cards_program_idx ON loyalty_cards (empresa_id, program_id, status)`
  yield* sql`
    CREATE INDEX loyalty_cards_completions_idx ON loyalty_cards (empresa_id, completed_at)
    INCLUDE (program_id, client_id) WHERE completed_at IS NOT NULL`

  // Append-only; the covering indexes let stamps-by-period and top-client metrics run as
  // index-only scans over a time window, for all programs or one.
  yield* sql`
    CREATE TABLE loyalty_stamps (
      empresa_id  uuid NOT NULL,
      id          uuid NOT NULL DEFAULT gen_random_uuid(),
      card_id     uuid NOT NULL,
      client_id   uuid NOT NULL,
      program_id  uuid NOT NULL,
      quantity    integer NOT NULL CHECK (quantity >= 1),
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, card_id, client_id, program_id)
        REFERENCES loyalty_cards (empresa_id, id, client_id, program_id)
    )`
  yield* sql`
    CREATE INDEX loyalty_stamps_period_idx ON loyalty_stamps (empresa_id, created_at)
    INCLUDE (client_id, program_id, quantity)`
  yield* sql`
    CREATE INDEX loyalty_stamps_program_period_idx ON loyalty_stamps (empresa_id, program_id, created_at)
    INCLUDE (client_id, quantity)`
})
