import { SqlClient } from "@effect/sql"
import { sqlErrorsAsDefects } from "@fidelis/db"
import { Effect } from "effect"
import { Conflict, NotFound } from "../errors.js"
import type { ClientId, EmpresaId } from "../ids.js"
import { insertEvent, recordEvent, type ActivityEvent } from "../timeline/events.js"
import type { CreditPointsInput, CreditPointsResult } from "./contracts.js"

/** A spend, and the timeline event that tells the client what the points bought. */
interface Debit {
  readonly clientId: ClientId
  readonly points: number
  readonly source: string
  readonly description?: string | undefined
  readonly event: Pick<ActivityEvent, "type" | "title" | "metadata">
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
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const balance = Effect.fn("Points.balance")(function* (empresaId: EmpresaId, clientId: ClientId) {
      const [row] = yield* sql<{ client_id: ClientId; balance: number; empresa_id: EmpresaId }>`
        SELECT id AS client_id, balance, empresa_id FROM clients WHERE empresa_id = ${empresaId} AND id = ${clientId}`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: clientId })
      return row
    })

    /**
     * Adds to the cached balance, appends the ledger entry and the timeline event in one
     * statement (the hot path: one round trip): the row lock on the client serializes concurrent
     * credits, so none is lost.
     */
    const credit = Effect.fn("Points.credit")(function* (empresaId: EmpresaId, input: CreditPointsInput) {
      const type = eventTypeOf(input.source)
      const title = `+${input.points} points`
      const [row] = yield* sql<CreditPointsResult>`
        WITH c AS (
          UPDATE clients
          SET balance = balance + ${input.points}, total_earned = total_earned + ${input.points}, updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${input.client_id}
          RETURNING id, balance
        ), ledger AS (
          INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
          SELECT ${empresaId}, c.id, 'credit', ${input.points}, c.balance, ${input.source ?? null}, ${input.description ?? null}
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
            metadata: sql`jsonb_build_object('transaction_id', ledger.id, 'source', ${input.source ?? null}::text)`
          },
          sql`c, ledger`
        )})
        SELECT c.id AS client_id, c.balance, ${empresaId}::uuid AS empresa_id,
               ${input.points}::int AS credited, ledger.id AS transaction_id
        FROM c, ledger`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: input.client_id })
      return row
    })

    /**
     * Spends points with a conditional update (`balance >= points`), never read-then-write, so
     * concurrent spends can never take the balance below zero. Call it inside the transaction of
     * what the points buy; a refusal is `INSUFFICIENT_POINTS`.
     */
    const debit = Effect.fn("Points.debit")(function* (empresaId: EmpresaId, spend: Debit) {
      const [row] = yield* sql<{ balance: number; transaction_id: string }>`
        WITH c AS (
          UPDATE clients
          SET balance = balance - ${spend.points}, total_spent = total_spent + ${spend.points}, updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${spend.clientId} AND balance >= ${spend.points}
          RETURNING id, balance
        ), ledger AS (
          INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
          SELECT ${empresaId}, c.id, 'spend', ${-spend.points}, c.balance, ${spend.source}, ${spend.description ?? null}
          FROM c
          RETURNING id
        )
        SELECT c.balance, ledger.id AS transaction_id FROM c, ledger`
      if (row === undefined) {
        const current = yield* balance(empresaId, spend.clientId)
        return yield* new Conflict({
          code: "INSUFFICIENT_POINTS",
          message: `The client has ${current.balance} points; this needs ${spend.points}`
        })
      }
      yield* recordEvent({
        empresaId,
        clientId: spend.clientId,
        type: spend.event.type,
        title: spend.event.title,
        description: spend.description,
        points: -spend.points,
        metadata: { ...spend.event.metadata, transaction_id: row.transaction_id }
      })
      return row
    })

    /**
     * Gives back a spend that was undone (a cancelled coupon): the mirror of `debit`, with a
     * 'refund' ledger entry, positive points and the timeline event, in the caller's transaction.
     */
    const refund = Effect.fn("Points.refund")(function* (empresaId: EmpresaId, spend: Debit) {
      const [row] = yield* sql<{ balance: number; transaction_id: string }>`
        WITH c AS (
          UPDATE clients
          SET balance = balance + ${spend.points}, total_spent = total_spent - ${spend.points}, updated_at = now()
          WHERE empresa_id = ${empresaId} AND id = ${spend.clientId}
          RETURNING id, balance
        ), ledger AS (
          INSERT INTO points_ledger (empresa_id, client_id, kind, points, balance_after, source, description)
          SELECT ${empresaId}, c.id, 'refund', ${spend.points}, c.balance, ${spend.source}, ${spend.description ?? null}
          FROM c
          RETURNING id
        )
        SELECT c.balance, ledger.id AS transaction_id FROM c, ledger`
      if (row === undefined) return yield* new NotFound({ resource: "Client", id: spend.clientId })
      yield* recordEvent({
        empresaId,
        clientId: spend.clientId,
        type: spend.event.type,
        title: spend.event.title,
        description: spend.description,
        points: spend.points,
        metadata: { ...spend.event.metadata, transaction_id: row.transaction_id }
      })
      return row
    })

    return sqlErrorsAsDefects({ balance, credit, debit, refund })
  })
}) {}
