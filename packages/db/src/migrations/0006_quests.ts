import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Quests: public satisfaction surveys. Each empresa has exactly one default survey (the standard
 * CSAT/NPS one, created on first need); every other survey is custom. Responses (a later table)
 * reference (empresa_id, quest_id).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE quests (
      empresa_id              uuid NOT NULL REFERENCES empresas (id),
      id                      uuid NOT NULL DEFAULT gen_random_uuid(),
      name                    text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      description             text NOT NULL DEFAULT '',
      survey_type             text NOT NULL CHECK (survey_type IN ('standard_csat_nps', 'custom')),
      research                jsonb NOT NULL CHECK (
                                jsonb_typeof(research -> 'fields') = 'array'
                                AND jsonb_array_length(research -> 'fields') BETWEEN 1 AND 20
                              ),
      valid_until             timestamptz,
      cta_review_on_promoter  boolean NOT NULL DEFAULT false,
      is_public               boolean NOT NULL DEFAULT true,
      active                  boolean NOT NULL DEFAULT true,
      is_default              boolean NOT NULL DEFAULT false,
      created_at              timestamptz NOT NULL DEFAULT now(),
      updated_at              timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      -- The standard survey is the default one and only it.
      CHECK (is_default = (survey_type = 'standard_csat_nps'))
    )`
  // Two concurrent first reads both try to create the default; this makes exactly one win.
  yield* sql`CREATE UNIQUE INDEX quests_default_key ON quests (empresa_id) WHERE is_default`
  yield* sql`CREATE INDEX quests_recent_idx ON quests (empresa_id, created_at DESC, id DESC)`
})
