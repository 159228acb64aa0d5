import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Conflict, NotFound, tooLarge } from "../errors.js"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import { ReferralCompletion } from "../referrals/service.js"
import { insertEvent, recordEvent, type ActivityEvent } from "../timeline/service.js"
import { MAX_MONEY, MAX_POINTS } from "../amounts.js"
import type { CreditPointsInput, CreditPointsResult } from "./contracts.js"
import { traced } from "../tracing.js"

/** A spend, and the timeline event that tells the client what the points bought. */
interface Debit {
  readonly clientId: ClientId
  readonly points: number
  readonly source: string
  readonly description?: string | undefined
  readonly event: Pick<ActivityEvent, "type" | "title" | "metadata">
}

/** A spend given back, and the request field that asked for it (named when the balance has no room). */
interface Refund extends Debit {
  readonly loc: ReadonlyArray<string>
}

/** Timeline category of a credit, from its declared source; purchases are the default. */
const eventTypeOf = (source: string | undefined) => {
  switch (source?.toLowerCase()) {
    case "referral":
      return "referral"
    case "survey":
    case "interaction":
      return "interaction"
    case "reward":
      return "reward"
    default:
      return "purchase"
  }
}

export class Points extends Effect.Service<Points>()("core/Points", {
  accessors: true,
  dependencies: [ReferralCompletion.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const completion = yield* ReferralCompletion

    const balance = traced("Points.balance")(function* (empresaId: EmpresaId, clientId: ClientId) {
      const [row] = yield* sql<{ client_id: ClientId; balance: number; empresa_id: EmpresaId }>`
        SELECT id AS client_id, balance, empresa_id FROM clients WHERE empresa_id = ${empresaId} AND id = ${clientId}`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: clientId })
      return row
    })

    /**
     * Adds to the cached balance, appends the ledger entry and the timeline event in one
     * statement (the hot path: one round trip): the row lock on the client serializes concurrent
     * credits, so none is lost. It also says whether the client's user has a referral waiting for
     * a first earning (ReferralCompletion), so a credit without one costs nothing more.
     */
    const add = (empresaId: EmpresaId, input: CreditPointsInput, metadata: Readonly<Record<string, unknown>> = {}) => {
      const type = eventTypeOf(input.source)
      const title = `+${input.points} points`
      return sql<CreditPointsResult & { user_id: UserId; referral_pending: boolean }>`
        WITH c AS (
          UPDATE clients
          SET balance = balance + ${input.points}, total_earned = total_earned + ${input.points}, updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${input.client_id} AND balance + ${input.points} <= ${MAX_POINTS}
          RETURNING id, balance, user_id
        ), ledger AS (
          INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
          SELECT ${empresaId}, c.id, 'credit', ${input.points}, c.balance, ${input.source ?? null},
                 ${input.description ?? null}
          FROM c
          RETURNING id
        ), event AS (${insertEvent(
          sql,
          {
            empresaId,
            clientId: sql`c.id`,
            type,
            title,
            description: input.description ?? null,
            points: input.points,
            metadata: sql`jsonb_build_object('transaction_id', ledger.id, 'source', ${input.source ?? null}::text)
                          || ${jsonb(metadata)}::jsonb`
          },
          sql`c, ledger`
        )})
        SELECT c.id AS client_id, c.balance, ${empresaId}::uuid AS empresa_id,
               ${input.points}::int AS credited, ledger.id AS transaction_id, c.user_id,
               EXISTS (SELECT 1 FROM users u
                       WHERE u.id = c.user_id AND u.referral_completed_at IS NULL
                         AND u.pending_referral_code IS NOT NULL AND u.email_verified_at IS NOT NULL)
                 AS referral_pending
        FROM c, ledger`.pipe(Effect.map((rows) => rows[0]))
    }

    /**
     * The 422 of points the client's balance has no room for (`amount` says what they are), read
     * after the conditional update found none.
     */
    const noRoom = (empresaId: EmpresaId, clientId: ClientId, loc: ReadonlyArray<string>, amount: string) =>
      Effect.gen(function* () {
        const current = yield* balance(empresaId, clientId)
        return yield* tooLarge(
          loc,
          `The client's balance, ${current.balance} points, has no room for ${amount}: ` +
            `a balance holds at most ${MAX_POINTS} points`
        )
      })

    /**
     * A referral bonus, up to what the client's balance has room for (locked until the credit): the
     * bonus is a side effect of someone's purchase, which a full balance must not refuse.
     */
    const bonus = (
      empresaId: EmpresaId,
      clientId: ClientId,
      points: number,
      metadata: Readonly<Record<string, unknown>>
    ) =>
      Effect.gen(function* () {
        const [row] = yield* sql<{ room: number }>`
          SELECT ${MAX_POINTS} - balance AS room FROM clients
          WHERE empresa_id = ${empresaId} AND id = ${clientId} FOR UPDATE`
        const fits = Math.min(points, row?.room ?? 0)
        if (fits <= 0) return
        const reduced = fits < points ? { campaign_bonus: points } : {}
        yield* add(
          empresaId,
          { client_id: clientId, points: fits, source: "referral", description: "Referral bonus" },
          { ...metadata, ...reduced }
        )
      })

    /**
     * Credits points: the one write path of every earning (the company API, NFC-e, whose timeline
     * event carries the invoice in `metadata`). A balance never passes `MAX_POINTS`: a credit that
     * would is a 422 at `points`. A user's first purchase credit (its source's category is
     * `purchase`: not a bonus for a referral, a survey, an interaction or a reward) at a store
     * running a referral campaign completes the user's referral, whose bonuses are credited in this
     * same transaction.
     */
    const credit = traced("Points.credit")(function* (
      empresaId: EmpresaId,
      input: CreditPointsInput,
      metadata: Readonly<Record<string, unknown>> = {}
    ) {
      const row = yield* add(empresaId, input, metadata)
      if (row === undefined)
        return yield* noRoom(empresaId, input.client_id, ["body", "points"], `${input.points} more`)
      const { user_id, referral_pending, ...result } = row
      if (referral_pending && eventTypeOf(input.source) === "purchase") {
        yield* completion.complete(
          empresaId,
          { clientId: result.client_id, userId: user_id },
          (clientId, points, meta) => bonus(empresaId, clientId, points, meta)
        )
      }
      return result
    }, inTransaction(sql))

    /**
     * Moves a spent amount: `spend` takes it off the balance, `refund` gives a spend back; each with
     * its ledger entry and timeline event, in the caller's transaction. The update is conditional (a
     * spend never takes the balance below zero, a refund never past `MAX_POINTS`), never
     * read-then-write, so concurrent spends cannot overdraw. Undefined when the client is missing or
     * its balance falls short or has no room.
     */
    const move = (empresaId: EmpresaId, spend: Debit, kind: "spend" | "refund") =>
      Effect.gen(function* () {
        const delta = kind === "spend" ? -spend.points : spend.points
        const [row] = yield* sql<{ balance: number; transaction_id: string }>`
          WITH c AS (
            UPDATE clients
            SET balance = balance + ${delta}, total_spent = total_spent - ${delta}, updated_at = now()
            WHERE empresa_id = ${empresaId} AND id = ${spend.clientId}
              AND ${kind === "spend" ? sql`balance + ${delta} >= 0` : sql`balance + ${delta} <= ${MAX_POINTS}`}
            RETURNING id, balance
          ), ledger AS (
            INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
            SELECT ${empresaId}, c.id, ${kind}, ${delta}, c.balance, ${spend.source}, ${spend.description ?? null}
            FROM c
            RETURNING id
          )
          SELECT c.balance, ledger.id AS transaction_id FROM c, ledger`
        if (row === undefined) return undefined
        yield* recordEvent({
          empresaId,
          clientId: spend.clientId,
          type: spend.event.type,
          title: spend.event.title,
          description: spend.description,
          points: delta,
          metadata: { ...spend.event.metadata, transaction_id: row.transaction_id }
        })
        return row
      })

    /** Spends points inside the transaction of what they buy; a refusal is `INSUFFICIENT_POINTS`. */
    const debit = traced("Points.debit")(function* (empresaId: EmpresaId, spend: Debit) {
      const row = yield* move(empresaId, spend, "spend")
      if (row !== undefined) return row
      const current = yield* balance(empresaId, spend.clientId)
      return yield* new Conflict({
        code: "INSUFFICIENT_POINTS",
        message: `The client has ${current.balance} points; this needs ${spend.points}`
      })
    })

    /**
     * Gives back a spend that was undone (a cancelled coupon), with a 'refund' ledger entry; a
     * balance credited meanwhile up to the top has no room for it: a 422 at the refund's `loc`.
     */
    const refund = traced("Points.refund")(function* (empresaId: EmpresaId, spend: Refund) {
      const row = yield* move(empresaId, spend, "refund")
      if (row === undefined)
        return yield* noRoom(empresaId, spend.clientId, spend.loc, `the ${spend.points} this gives back`)
      return row
    })

    /**
     * Moves the cashback balance by `amount` BRL (negative takes back what a cancelled reward
     * credited), with its ledger entry, in the caller's transaction. Nothing spends cashback yet,
     * so a take-back always finds it; the guard keeps the balance's CHECK from being the one to say so.
     * The balance holds at most `MAX_MONEY`: more is a 422 at `loc`, the field that asked for it.
     */
    const cashback = traced("Points.cashback")(function* (
      empresaId: EmpresaId,
      change: {
        readonly clientId: ClientId
        readonly amount: number
        readonly source: string
        readonly description: string
        readonly loc: ReadonlyArray<string>
      }
    ) {
      const [row] = yield* sql<{ cashback_balance: number }>`
        WITH c AS (
          UPDATE clients SET cashback_balance = cashback_balance + ${change.amount}::numeric, updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${change.clientId}
            AND cashback_balance + ${change.amount}::numeric BETWEEN 0 AND ${MAX_MONEY}
          RETURNING id, balance, cashback_balance
        ), ledger AS (
          INSERT INTO points_ledger (empresa_id, client_id, kind, points, cashback, balance_after, source, description)
          SELECT ${empresaId}, c.id, ${change.amount > 0 ? "credit" : "adjust"}, 0, ${change.amount}::numeric,
                 c.balance, ${change.source}, ${change.description}
          FROM c
        )
        SELECT cashback_balance FROM c`
      if (row === undefined && change.amount > 0)
        return yield* tooLarge(
          change.loc,
          `A cashback of R$ ${change.amount.toFixed(2)} would bring the client's cashback balance above ` +
            `the R$ ${MAX_MONEY.toFixed(2)} it holds`
        )
      if (row === undefined)
        return yield* Effect.dieMessage(`Cashback of client ${change.clientId} cannot move by ${change.amount}`)
      return row.cashback_balance
    })

    return sqlErrorsAsDefects({ balance, credit, debit, refund, cashback })
  })
}) {}
