import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Background jobs and email (docs/research/background-jobs.md, docs/decisions.md "Email").
 *
 * `jobs` is a generic queue worked with FOR UPDATE SKIP LOCKED: a worker claims due rows in one
 * statement (state `running`, a lease in `locked_until`), runs the handler outside any transaction,
 * then marks the row `done`, or `pending` again with a backoff, or `dead` after the last try. A row
 * whose lease ran out (its worker crashed) is claimed again. It is platform infrastructure, like
 * `rate_limit_counters`: tenant data lives in the rows a payload points at.
 *
 * `email_messages` is the outbox: written in the same transaction as what causes the email, with
 * the job that sends it. The message is rendered when it is sent, from the rows its payload names.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE jobs (
      id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      queue         text NOT NULL CHECK (length(queue) BETWEEN 1 AND 100),
      payload       jsonb NOT NULL DEFAULT '{}',
      state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'dead')),
      attempts      integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      max_attempts  integer NOT NULL CHECK (max_attempts > 0),
      run_at        timestamptz NOT NULL DEFAULT now(),
      locked_by     text,
      locked_until  timestamptz,
      last_error    text,
      outcome       text,
      created_at    timestamptz NOT NULL DEFAULT now(),
      finished_at   timestamptz,
      CHECK ((state = 'running') = (locked_by IS NOT NULL AND locked_until IS NOT NULL)),
      CHECK ((state IN ('done', 'dead')) = (finished_at IS NOT NULL))
    )`
  // What a claim scans: due pending rows and running rows whose lease may have run out.
  yield* sql`CREATE INDEX jobs_ready_idx ON jobs (queue, run_at) WHERE state IN ('pending', 'running')`

  yield* sql`
    CREATE TABLE email_messages (
      empresa_id     uuid NOT NULL REFERENCES empresas (id),
      id             uuid NOT NULL DEFAULT gen_random_uuid(),
      kind           text NOT NULL CHECK (length(kind) BETWEEN 1 AND 100),
      to_address     text NOT NULL CHECK (length(to_address) BETWEEN 3 AND 254),
      payload        jsonb NOT NULL DEFAULT '{}',
      status         text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'suppressed', 'dead')),
      job_id         bigint NOT NULL REFERENCES jobs (id),
      subject        text,
      smtp_response  text,
      last_error     text,
      sent_at        timestamptz,
      created_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      CHECK ((status = 'sent') = (sent_at IS NOT NULL))
    )`
  yield* sql`CREATE INDEX email_messages_recent_idx ON email_messages (empresa_id, created_at DESC, id DESC)`

  // Addresses that asked to stop receiving an empresa's email; the sender checks it at send time.
  yield* sql`
    CREATE TABLE email_suppressions (
      empresa_id  uuid NOT NULL REFERENCES empresas (id),
      address     text NOT NULL CHECK (address = lower(address)),
      reason      text NOT NULL DEFAULT 'unsubscribed' CHECK (reason IN ('unsubscribed')),
      message_id  uuid,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, address)
    )`

  // Opens, clicks and unsubscribes, as the tracking routes record them.
  yield* sql`
    CREATE TABLE email_events (
      empresa_id  uuid NOT NULL,
      id          uuid NOT NULL DEFAULT gen_random_uuid(),
      message_id  uuid NOT NULL,
      kind        text NOT NULL CHECK (kind IN ('open', 'click', 'unsubscribe')),
      url         text,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (empresa_id, id),
      FOREIGN KEY (empresa_id, message_id) REFERENCES email_messages (empresa_id, id),
      CHECK ((kind = 'click') = (url IS NOT NULL))
    )`
  yield* sql`CREATE INDEX email_events_message_idx ON email_events (empresa_id, message_id, created_at)`

  // Secrets the server generates once and every process shares (the email token key).
  yield* sql`
    CREATE TABLE server_secrets (
      name        text PRIMARY KEY,
      value       text NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now()
    )`
})
