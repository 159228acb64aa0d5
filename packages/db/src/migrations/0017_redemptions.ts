import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a user takes away with points (issue 15): a redeemed reward, a checked-out cart (an order)
 * and a stamp card's claimed reward are all one kind of record, a redemption, which staff validate
 * at the counter by its code. Carts hold what the user is about to order.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // The table exists since 0008 (metrics read it). An order and a card's reward have no reward;
  // `items`: an order's lines ({product_uid, product_name, quantity}); `cashback`: what a reward
  // credited, taken back by a cancellation; `product_name`: what the counter hands over.
  yield* sql`
    ALTER TABLE redemptions
      ALTER COLUMN reward_id DROP NOT NULL,
      ADD COLUMN kind          text NOT NULL DEFAULT 'reward' CHECK (kind IN ('reward', 'order', 'card')),
      ADD COLUMN card_id       uuid,
      ADD COLUMN product_name  text NOT NULL DEFAULT '',
      ADD COLUMN cashback      numeric(14, 2) NOT NULL DEFAULT 0 CHECK (cashback >= 0),
      ADD COLUMN items         jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD CONSTRAINT redemptions_reward_kind CHECK ((kind = 'reward') = (reward_id IS NOT NULL))`
  yield* sql`
    UPDATE redemptions r SET product_name = p.name
    FROM rewards w JOIN products p ON p.empresa_id = w.empresa_id AND p.id = w.product_id
    WHERE w.empresa_id = r.empresa_id AND w.id = r.reward_id`
  yield* sql`CREATE INDEX redemptions_pending_idx ON redemptions (expires_at) WHERE status = 'pending'`

  yield* sql`
    CREATE TABLE carts (
      empresa_id   uuid NOT NULL REFERENCES empresas (id),
      id           uuid NOT NULL DEFAULT gen_random_uuid(),
      user_id      uuid NOT NULL REFERENCES users (id),
      status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'checked_out')),
      order_id     uuid,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id)
    )`
  // One open cart per user and store: a parallel first add cannot make a second.
  yield* sql`CREATE UNIQUE INDEX carts_open_key ON carts (empresa_id, user_id) WHERE status = 'open'`
  yield* sql`CREATE INDEX carts_user_idx ON carts (user_id)`

  yield* sql`
    CREATE TABLE cart_items (
      empresa_id  uuid NOT NULL,
      cart_id     uuid NOT NULL,
      product_id  uuid NOT NULL,
      quantity    integer NOT NULL CHECK (quantity > 0),
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, cart_id, product_id),
      FOREIGN KEY (empresa_id, cart_id) REFERENCES carts (empresa_id, id),
      FOREIGN KEY (empresa_id, product_id) REFERENCES products (empresa_id, id)
    )`
})
