import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Clock, Effect, Either, Layer, Struct } from "effect"
import { readFileSync } from "node:fs"
import { Config } from "../config.js"
import { settingsOf } from "../empresas/contracts.js"
import { pageOf } from "../contracts.js"
import { Conflict, Forbidden, NotFound, ValidationFailed } from "../errors.js"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import { JobFailed, type ClaimedJob } from "../jobs/contracts.js"
import { Jobs } from "../jobs/service.js"
import type { JobHandler } from "../jobs/worker.js"
import { Points } from "../points/service.js"
import type {
  DecodedQr,
  DecodeQrResult,
  InspectInput,
  InspectResult,
  InvoiceOutcome,
  ListInvoicesInput,
  NfceInvoice,
  NfceProgress,
  StoreCnpj,
  NfceTaskStatus
} from "./contracts.js"
import { SefazGateway } from "./gateway.js"
import { httpFetcher } from "./http-gateway.js"
import { decodeQr } from "./qr.js"
import { traced } from "../tracing.js"

/** The jobs queue of the scan tasks. */
export const NFCE_QUEUE = "nfce"

/**
 * The states' pages in production; with `nfceFixtureFile` (tests), the file's outcomes by access
 * key, read at each consultation so a test may write it while the server runs.
 */
const gatewayLayer = Layer.unwrapEffect(
  Effect.map(Config, ({ nfceFixtureFile }) =>
    nfceFixtureFile === undefined
      ? SefazGateway.layer(httpFetcher())
      : SefazGateway.layer((invoice) =>
          Effect.sync((): InvoiceOutcome => {
            const outcomes = JSON.parse(readFileSync(nfceFixtureFile, "utf8")) as Record<string, InvoiceOutcome>
            return outcomes[invoice.access_key] ?? { status: "not_found", detail: "No such invoice in the fixtures" }
          })
        )
  )
)

/** Points for a total in centavos: whole points only, never rounded up. */
const pointsFor = (totalCents: number, pointsPerReal: number) => Math.floor((totalCents * pointsPerReal) / 100 + 1e-9)

/** A QR code judged with one store's limits; a refusal is the 422 at `qr_code`, typed by its reason. */
const judged = (qrCode: string, options: { now: Date; maxAgeDays: number | null; sandbox: boolean }) =>
  Either.match(decodeQr(qrCode, options), {
    onLeft: (refusal) =>
      Effect.fail(
        new ValidationFailed({
          issues: [{ loc: ["body", "qr_code"], msg: refusal.message, type: refusal.reason.toLowerCase() }]
        })
      ),
    onRight: (invoice) => Effect.succeed(invoice)
  })

interface Task {
  readonly empresa_id: EmpresaId
  readonly id: string
  readonly client_id: ClientId
  readonly status: NfceTaskStatus
  readonly qr: DecodedQr
}

/**
 * NFC-e receipts: what a scanned QR code says, judged before anything is fetched or credited, and
 * the scan task that asks the state for the invoice and credits its points once.
 */
export class Nfce extends Effect.Service<Nfce>()("core/Nfce", {
  accessors: true,
  dependencies: [Points.Default, Jobs.Default, gatewayLayer],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* Jobs
    const points = yield* Points
    const gateway = yield* SefazGateway

    const inspect = traced("Nfce.inspect")(function* (input: InspectInput) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const decoded = decodeQr(input.qr_code, { now, maxAgeDays: input.max_age_days, sandbox: input.sandbox })
      return Either.match(decoded, {
        onLeft: (refusal): InspectResult => ({ valid: false, refusal }),
        onRight: (invoice): InspectResult => ({ valid: true, invoice })
      })
    })

    /** The empresa issuing from a CNPJ: one of its registered CNPJs, or the one on its profile. */
    const empresaOfIssuer = (issuer: string) =>
      sql<{ id: EmpresaId; settings: Record<string, unknown> }>`
        SELECT e.id, e.settings FROM empresas e
        WHERE e.id IN (SELECT empresa_id FROM empresa_cnpjs WHERE cnpj = ${issuer})
           OR e.cnpj = ${issuer}
        LIMIT 1`.pipe(Effect.map(([row]) => row))

    /**
     * Accepts a receipt for crediting: local checks (the store's age limit and sandbox flag), the
     * store by the issuer's CNPJ, then the task and its job in one transaction. The access key's
     * unique index decides who scanned first, so parallel scans cannot both pass.
     */
    const scan = traced("Nfce.scan")(function* (userId: UserId, qrCode: string) {
      const now = new Date(yield* Clock.currentTimeMillis)
      // The key names the store, whose limits then judge the receipt.
      const { fields } = yield* judged(qrCode, { now, maxAgeDays: null, sandbox: true })
      const empresa = yield* empresaOfIssuer(fields.issuer)
      if (empresa === undefined)
        return yield* new NotFound({ resource: "No store on Fidelis issues receipts from CNPJ", id: fields.issuer })
      const settings = settingsOf(empresa)
      const invoice = yield* judged(qrCode, {
        now,
        maxAgeDays: settings.nfce_max_age_days,
        sandbox: settings.nfce_sandbox
      })
      return yield* inTransaction(sql)(
        Effect.gen(function* () {
          const [user] = yield* sql<{ nome: string; email: string; verified: boolean }>`
            SELECT nome, email, email_verified_at IS NOT NULL AS verified FROM users WHERE id = ${userId}`
          if (user === undefined || !user.verified)
            return yield* new Forbidden({
              message: "Verify your email first: receipts earn points for verified accounts"
            })
          // A first receipt at a store makes the user its client, as a first visit would.
          yield* sql`
            INSERT INTO clients (empresa_id, user_id, nome, email)
            VALUES (${empresa.id}, ${userId}, ${user.nome}, ${user.email})
            ON CONFLICT DO NOTHING`
          const [client] = yield* sql<{ id: ClientId }>`
            SELECT id FROM user_clients WHERE empresa_id = ${empresa.id} AND user_id = ${userId}`
          if (client === undefined)
            return yield* new Forbidden({
              message: "Another client record at this store holds your email; ask the store to link it to your account"
            })
          const [inserted] = yield* sql<{ id: string }>`
            INSERT INTO nfce_invoices (empresa_id, access_key, user_id, client_id, qr, message)
            VALUES (${empresa.id}, ${invoice.access_key}, ${userId}, ${client.id}, ${jsonb(invoice)}::jsonb,
                    'Waiting for the invoice total')
            ON CONFLICT (access_key) DO NOTHING
            RETURNING id`
          // A failed scan credited nothing, so the receipt is not spent: scanning it again (the state had
          // not received a contingency invoice yet, its page was down for hours) reopens the same task for
          // whoever scans it. The status condition takes the row lock, so parallel rescans reopen it once.
          const [task] =
            inserted !== undefined
              ? [inserted]
              : yield* sql<{ id: string }>`
                  UPDATE nfce_invoices SET empresa_id = ${empresa.id}, user_id = ${userId}, client_id = ${client.id},
                    qr = ${jsonb(invoice)}::jsonb, status = 'processing', progress = 0, attempts = 0,
                    message = 'Waiting for the invoice total', completed_at = NULL, updated_at = now()
                  WHERE access_key = ${invoice.access_key} AND status = 'failed'
                  RETURNING id`
          if (task === undefined) {
            const [earlier] = yield* sql<{ id: string; user_id: UserId | null }>`
              SELECT id, user_id FROM nfce_invoices WHERE access_key = ${invoice.access_key}`
            return yield* earlier?.user_id === userId
              ? new Conflict({
                  code: "NFCE_ALREADY_SCANNED",
                  message: "You already scanned this receipt; follow its task for the points",
                  details: { task_id: earlier.id }
                })
              : new Conflict({
                  code: "NFCE_CLAIMED_BY_OTHER",
                  message: "This receipt was already scanned by another account: each receipt earns points once"
                })
          }
          yield* jobs.enqueue({ queue: NFCE_QUEUE, payload: { empresa_id: empresa.id, task_id: task.id } })
          return {
            success: true,
            task_id: task.id,
            status: "processing",
            message: "Receipt accepted: its points are credited once the invoice total is confirmed"
          } satisfies DecodeQrResult
        })
      )
    })

    const progress = traced("Nfce.progress")(function* (userId: UserId, taskId: string) {
      const [row] = yield* sql<NfceProgress>`
        SELECT id AS task_id, status, progress, message, points_credited AS points
        FROM nfce_invoices WHERE id = ${taskId} AND user_id = ${userId}`
      if (row === undefined) return yield* new NotFound({ resource: "NFC-e task", id: taskId })
      return row
    })

    const settle = (task: Task, status: "failed" | "processing", message: string, progressValue: number) =>
      sql`
        UPDATE nfce_invoices SET status = ${status}, message = ${message}, progress = ${progressValue},
          updated_at = now(), completed_at = CASE WHEN ${status} = 'failed' THEN now() END
        WHERE empresa_id = ${task.empresa_id} AND id = ${task.id} AND status = 'processing'`

    /** Credits the invoice and completes the task in one transaction; a task already settled is left. */
    const complete = (task: Task, outcome: Extract<InvoiceOutcome, { status: "ok" }>) =>
      inTransaction(sql)(
        Effect.gen(function* () {
          const [empresa] = yield* sql<{ settings: Record<string, unknown> }>`
            SELECT settings FROM empresas WHERE id = ${task.empresa_id}`
          const credited = pointsFor(outcome.total_cents, settingsOf(empresa!).points_per_real)
          const valor = outcome.total_cents / 100
          // The conditional update takes the task's row lock: a second delivery of the job credits nothing.
          const claimed = yield* sql`
            UPDATE nfce_invoices SET status = 'completed', progress = 100, valor_total = ${valor},
              items_count = ${outcome.items_count}, issued_at = ${outcome.issued_at}::timestamptz,
              points_credited = ${credited}, message = ${`Credited ${credited} points`},
              completed_at = now(), updated_at = now()
            WHERE empresa_id = ${task.empresa_id} AND id = ${task.id} AND status = 'processing'
            RETURNING id`
          if (claimed.length === 0 || credited === 0) return
          yield* (
            points
              .credit(
                task.empresa_id,
                {
                  client_id: task.client_id,
                  points: credited,
                  source: "nfce",
                  description: `NFC-e R$ ${valor.toFixed(2)}`
                },
                { nfce_id: task.id, valor_total: valor, items_count: outcome.items_count }
              )
              // The task names its client, which the foreign key keeps: a missing one is a bug, not a retry.
              .pipe(Effect.orDie)
          )
        })
      )

    /** One try of a scan task: the gateway's outcome settles it, except `unavailable`, retried with backoff. */
    const run = (job: ClaimedJob) =>
      Effect.gen(function* () {
        const { empresa_id, task_id } = job.payload as { empresa_id: EmpresaId; task_id: string }
        const [task] = yield* sql<Task>`
          UPDATE nfce_invoices SET attempts = attempts + 1, progress = GREATEST(progress, 25), updated_at = now(),
            message = 'Asking the state for the invoice'
          WHERE empresa_id = ${empresa_id} AND id = ${task_id} AND status = 'processing'
          RETURNING empresa_id, id, client_id, status, qr`
        if (task === undefined) return { outcome: "already settled" }
        const outcome = yield* gateway.fetchInvoice(task.qr)
        switch (outcome.status) {
          case "ok":
            yield* complete(task, outcome)
            return { outcome: "completed" }
          case "unavailable":
            yield* settle(task, "processing", "The state's invoice page is unavailable; trying again soon", 50)
            return yield* new JobFailed({ message: outcome.detail })
          default:
            yield* settle(task, "failed", failureMessage(outcome.status), 100)
            return { outcome: `${outcome.status}: ${outcome.detail}` }
        }
      }).pipe(Effect.catchTag("SqlError", (error) => new JobFailed({ message: error.message })))

    const onDead = (job: ClaimedJob) =>
      sql`
        UPDATE nfce_invoices SET status = 'failed', progress = 100, completed_at = now(), updated_at = now(),
          message = 'The state never answered for this invoice; scan it again later to retry, or ask the store'
        WHERE id = ${(job.payload as { task_id: string }).task_id} AND status = 'processing'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const cnpjs = traced("Nfce.cnpjs")(function* (empresaId: EmpresaId) {
      const data = yield* sql<StoreCnpj>`
        SELECT cnpj, created_at FROM empresa_cnpjs WHERE empresa_id = ${empresaId} ORDER BY created_at, cnpj`
      const [empresa] = yield* sql<{ cnpj: string | null }>`SELECT cnpj FROM empresas WHERE id = ${empresaId}`
      return { data: [...data], profile_cnpj: empresa?.cnpj ?? null }
    })

    /**
     * Registers a CNPJ the empresa issues receipts from; again for the same empresa changes nothing.
     * Another empresa's (registered or on its profile) is refused: a receipt must select one store.
     */
    const addCnpj = traced("Nfce.addCnpj")(function* (empresaId: EmpresaId, cnpj: string) {
      const [added] = yield* sql<StoreCnpj>`
        INSERT INTO empresa_cnpjs (cnpj, empresa_id)
        SELECT ${cnpj}, ${empresaId}
        WHERE NOT EXISTS (SELECT 1 FROM empresas WHERE cnpj = ${cnpj} AND id <> ${empresaId})
        ON CONFLICT (cnpj) DO UPDATE SET cnpj = EXCLUDED.cnpj WHERE empresa_cnpjs.empresa_id = ${empresaId}
        RETURNING cnpj, created_at`
      if (added === undefined)
        return yield* new Conflict({ code: "CNPJ_TAKEN", message: `Another empresa already has CNPJ ${cnpj}` })
      return added
    })

    const removeCnpj = traced("Nfce.removeCnpj")(function* (empresaId: EmpresaId, cnpj: string) {
      const [removed] = yield* sql<StoreCnpj>`
        DELETE FROM empresa_cnpjs WHERE empresa_id = ${empresaId} AND cnpj = ${cnpj} RETURNING cnpj, created_at`
      if (removed === undefined) return yield* new NotFound({ resource: "Store CNPJ", id: cnpj })
      return removed
    })

    /** The empresa's scanned receipts, newest first; `from`/`to` bound when they were scanned. */
    const invoices = traced("Nfce.invoices")(function* (empresaId: EmpresaId, input: ListInvoicesInput) {
      const rows = yield* sql<NfceInvoice & { total: number }>`
        SELECT id, access_key, status, progress, message, client_id, valor_total::float8 AS valor_total,
               items_count, points_credited, issued_at, created_at, completed_at, count(*) OVER ()::int AS total
        FROM nfce_invoices
        WHERE empresa_id = ${empresaId}
          ${input.status === undefined ? sql`` : sql`AND status = ${input.status}`}
          ${input.from === undefined ? sql`` : sql`AND created_at >= ${input.from}::timestamptz`}
          ${input.to === undefined ? sql`` : sql`AND created_at < ${input.to}::timestamptz`}
        ORDER BY created_at DESC, id
        LIMIT ${input.per_page} OFFSET ${(input.page - 1) * input.per_page}`
      const data = rows.map((row) => Struct.omit(row, "total"))
      return pageOf(data, rows[0]?.total ?? 0, input.page, input.per_page)
    })

    return {
      inspect,
      ...sqlErrorsAsDefects({ scan, progress, cnpjs, addCnpj, removeCnpj, invoices }),
      /** The `nfce` queue's handler. */
      handler: { queue: NFCE_QUEUE, run, onDead } satisfies JobHandler
    }
  })
}) {}

const failureMessage = (status: "captcha_required" | "blocked" | "not_found") => {
  switch (status) {
    case "captcha_required":
      return "This state shows invoices only behind a captcha, so the total cannot be confirmed automatically"
    case "blocked":
      return "The state's invoice page refused the consultation; ask the store to credit the purchase"
    case "not_found":
      return "The state does not know this invoice (yet): the store may not have transmitted it"
  }
}
