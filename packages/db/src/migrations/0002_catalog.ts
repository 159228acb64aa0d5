import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Products an empresa offers for points, and the rewards (redeemable offers) built on them. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE products (
      empresa_id   uuid NOT NULL REFERENCES empresas (id),
      id           uuid NOT NULL DEFAULT gen_random_uuid(),
      name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      description  text,
      image_url    text,
      category     text CHECK (length(category) BETWEEN 1 AND 100),
      points_cost  integer NOT NULL CHECK (points_cost > 0),
      price        numeric(12, 2) CHECK (price >= 0),
      stock        integer CHECK (stock >= 0),
      active       boolean NOT NULL DEFAULT true,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id)
    )`
  yield* sql`CREATE INDEX products_listing_idx ON products (empresa_id, active, name)`

  yield* sql`
    CREATE TABLE rewards (
      empresa_id          uuid NOT NULL REFERENCES empresas (id),
      id                  uuid NOT NULL DEFAULT gen_random_uuid(),
      product_id          uuid NOT NULL,
      pontos_necessarios  integer NOT NULL CHECK (pontos_necessarios > 0),
      cashback_value      numeric(12, 2) CHECK (cashback_value >= 0),
      stock               integer CHECK (stock >= 0),
      expires_at          timestamptz,
      per_user_limit      integer CHECK (per_user_limit > 0),
      active              boolean NOT NULL DEFAULT true,
      created_at          timestamptz NOT NULL DEFAULT now(),
      updated_at          timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, product_id) REFERENCES products (empresa_id, id)
    )`
  yield* sql`CREATE INDEX rewards_listing_idx ON rewards (empresa_id, active, created_at DESC)`
  yield* sql`CREATE INDEX rewards_product_idx ON rewards (empresa_id, product_id)`
})
