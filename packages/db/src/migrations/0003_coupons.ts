import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Coupons a client bought with points: worth a value in money (`points`) or one product
 * (`product`). States: active -> used | expired | cancelled.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE coupons (
      empresa_id    uuid NOT NULL REFERENCES empresas (id),
      id            uuid NOT NULL DEFAULT gen_random_uuid(),
      uid           text NOT NULL CHECK (uid ~ '^[2-9A-HJKMNP-Z]{8}$'),
      client_id     uuid NOT NULL,
      kind          text NOT NULL CHECK (kind IN ('points', 'product')),
      product_id    uuid,
      product_name  text,
      points_spent  integer NOT NULL CHECK (points_spent >= 0),
      valor         numeric(12, 2) CHECK (valor >= 0),
      status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'expired', 'cancelled')),
      expires_at    timestamptz NOT NULL,
      used_at       timestamptz,
      cancelled_at  timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      UNIQUE (empresa_id, uid),
      FOREIGN KEY (empresa_id, client_id) REFERENCES clients (empresa_id, id),
      FOREIGN KEY (empresa_id, product_id) REFERENCES products (empresa_id, id),
      CHECK ((kind = 'product') = (product_id IS NOT NULL)),
      CHECK (kind = 'product' OR valor IS NOT NULL),
      CHECK ((status = 'used') = (used_at IS NOT NULL)),
      CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
    )`
  yield* sql`CREATE INDEX coupons_recent_idx ON coupons (empresa_id, created_at DESC, id)`
  yield* sql`CREATE INDEX coupons_client_idx ON coupons (empresa_id, client_id, created_at DESC, id)`
  // Only overdue active coupons are ever looked up by expiry (the sweep, and expiry on read), and
  // there are few of them at any moment: a small partial index serves every tenant.
  yield* sql`CREATE INDEX coupons_expiry_idx ON coupons (expires_at) WHERE status = 'active'`
})
