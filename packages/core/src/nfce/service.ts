import { SqlClient } from "@effect/sql"
import { inTransaction, jsonb, sqlErrorsAsDefects } from "@fidelis/db"
import { Clock, Effect, Either, Layer, Struct } from "effect"
import { readFileSync } from "node:fs"
import { Config } from "../config.js"
import { settingsOf, type Settings } from "../empresas/contracts.js"
import { pageOf } from "../contracts.js"
import { Conflict, Forbidden, NotFound, RateLimited, ValidationFailed } from "../errors.js"
import type { ClientId, EmpresaId, UserId } from "../ids.js"
import { JobFailed, type ClaimedJob } from "../jobs/contracts.js"
import { Jobs } from "../jobs/service.js"
import type { JobHandler } from "../jobs/contracts.js"
import { Points } from "../points/service.js"
import { recordEvent } from "../timeline/service.js"
import type {
  DecodedQr,
  DecodeQrResult,
  InspectInput,
  InspectResult,
  InvoiceOutcome,
  ListInvoicesInput,
  NfceInvoice,
  NfceProgress,
  NfceTaskStatus
} from "./contracts.js"
import { SefazGateway } from "./gateway.js"
import { httpFetcher } from "./http-gateway.js"
import { confirmByOf, pointsFor, recheckDelay, reversalReason, totalRefusal, type ProofVerdict } from "./offline.js"
import { decodeQr } from "./qr.js"
import { CnpjClaims } from "./claims.js"
import { NfceProofs } from "./store-proofs.js"
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

/** The 422 at `qr_code` for a receipt whose CNPJ's claim no admin has proven yet. */
const unprovenIssuer = (cnpj: string) =>
  new ValidationFailed({
    issues: [
      {
        loc: ["body", "qr_code"],
        msg:
          `The store issuing from CNPJ ${cnpj} has not proven yet that this CNPJ is its own, so its receipts earn ` +
          "no points for now; scan this receipt again once it has",
        type: "cnpj_unproven"
      }
    ]
  })

/** A refusal of the total, as the 422 at `qr_code` a scan gives. */
const refusedTotal = (refusal: { readonly type: string; readonly msg: string }) =>
  new ValidationFailed({ issues: [{ loc: ["body", "qr_code"], msg: refusal.msg, type: refusal.type }] })

interface Task {
  readonly empresa_id: EmpresaId
  readonly id: string
  readonly client_id: ClientId
  readonly status: NfceTaskStatus
  readonly qr: DecodedQr
  /** Looks at the page so far; the job that sees the same number is the one to act. */
  readonly checks: number
}

/** What confirms a receipt, and the total and details it is credited with. */
interface Confirmation {
  readonly by: "state_page" | "csc" | "signature"
  readonly total_cents: number
  readonly items_count: number | null
  readonly issued_at: string | null
}

/**
 * NFC-e receipts: what a scanned QR code says, judged before anything is fetched or credited, and
 * the scan task that asks the state for the invoice and credits its points once.
 */
export class Nfce extends Effect.Service<Nfce>()("core/Nfce", {
  accessors: true,
  dependencies: [Points.Default, Jobs.Default, NfceProofs.Default, CnpjClaims.Default, gatewayLayer],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* Jobs
    const points = yield* Points
    const proofs = yield* NfceProofs
    const claims = yield* CnpjClaims
    const gateway = yield* SefazGateway
    const { nfceOffline } = yield* Config

    const inspect = traced("Nfce.inspect")(function* (input: InspectInput) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const decoded = decodeQr(input.qr_code, { now, maxAgeDays: input.max_age_days, sandbox: input.sandbox })
      return Either.match(decoded, {
        onLeft: (refusal): InspectResult => ({ valid: false, refusal }),
        onRight: (invoice): InspectResult => ({ valid: true, invoice })
      })
    })

    /**
     * Accepts a receipt for crediting: local checks (the store's age limit and sandbox flag), the
     * store by the issuer's CNPJ, then the task and its job in one transaction. The access key's
     * unique index decides who scanned first, so parallel scans cannot both pass.
     */
    const scan = traced("Nfce.scan")(function* (userId: UserId, qrCode: string) {
      const now = new Date(yield* Clock.currentTimeMillis)
      // The key names the store, whose limits then judge the receipt.
      const { fields } = yield* judged(qrCode, { now, maxAgeDays: null, sandbox: true })
      const empresa = yield* claims.holderOf(fields.issuer)
      if (empresa === undefined)
        return yield* new NotFound({ resource: "No store on Fidelis issues receipts from CNPJ", id: fields.issuer })
      // Anyone may register a free CNPJ: until an admin proves it is theirs, its receipts make nobody
      // a client there (whose name and email the store would see) and credit nothing. Refused before
      // anything is written, so the receipt stays unspent for when the claim is proven.
      if (!empresa.proven) return yield* unprovenIssuer(fields.issuer)
      const settings = settingsOf(empresa)
      const invoice = yield* judged(qrCode, {
        now,
        maxAgeDays: settings.nfce_max_age_days,
        sandbox: settings.nfce_sandbox
      })
      // An offline QR states its total: one no credit could hold is refused before anything is written.
      const refusal = invoice.offline === null ? undefined : totalRefusal(invoice.offline.total_cents, settings)
      if (refusal !== undefined) return yield* refusedTotal(refusal)
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
                    qr = ${jsonb(invoice)}::jsonb, status = 'processing', progress = 0, attempts = 0, checks = 0,
                    pending_points = NULL, confirm_by = NULL, confirmed_by = NULL, scanned_at = now(),
                    message = 'Waiting for the invoice total', completed_at = NULL, updated_at = now()
                  WHERE access_key = ${invoice.access_key} AND status IN ('failed', 'reversed')
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
          // Receipts in the last 24 hours, counted under the client's row lock so parallel scans count in
          // turn. Taken after the receipt's row, the order the scan task takes them in (the receipt, then
          // the client it credits): the other order deadlocked a rescan against a running credit. Past
          // the limit the whole scan rolls back, the receipt's row with it. NO KEY UPDATE: the receipt's
          // foreign key holds a KEY SHARE on the client already, which FOR UPDATE would wait on across scans.
          yield* sql`SELECT 1 FROM clients WHERE empresa_id = ${empresa.id} AND id = ${client.id} FOR NO KEY UPDATE`
          const [recent] = yield* sql<{ scans: number; retry_after: number | null }>`
            SELECT count(*)::int AS scans,
                   ceil(extract(epoch FROM min(scanned_at) + interval '1 day' - now()))::int AS retry_after
            FROM nfce_invoices
            WHERE user_id = ${userId} AND empresa_id = ${empresa.id} AND scanned_at > now() - interval '1 day'
              AND id <> ${task.id}`
          if (recent!.scans >= settings.nfce_receipts_per_day)
            return yield* new RateLimited({
              retryAfter: Math.max(1, recent!.retry_after ?? 1),
              reason: `You scanned ${recent!.scans} receipts at this store in the last 24 hours, its daily limit`
            })
          yield* jobs.enqueue({ queue: NFCE_QUEUE, payload: { empresa_id: empresa.id, task_id: task.id, check: 0 } })
          return {
            success: true,
            task_id: task.id,
            status: "processing",
            message:
              invoice.offline === null
                ? "Receipt accepted: its points are credited once the invoice total is confirmed"
                : "Offline receipt accepted: its points stay pending until the state or the store's proof confirms it"
          } satisfies DecodeQrResult
        })
      )
    })

    const progress = traced("Nfce.progress")(function* (userId: UserId, taskId: string) {
      const [row] = yield* sql<NfceProgress>`
        SELECT id AS task_id, status, progress, message, points_credited AS points,
               CASE WHEN status = 'pending' THEN pending_points END AS pending_points,
               CASE WHEN status = 'pending' THEN confirm_by END AS confirm_by
        FROM nfce_invoices WHERE id = ${taskId} AND user_id = ${userId}`
      if (row === undefined) return yield* new NotFound({ resource: "NFC-e task", id: taskId })
      return row
    })

    /** The task as this try found it; a later try or a settled task makes the update a no-op. */
    const current = (task: Task) =>
      sql`empresa_id = ${task.empresa_id} AND id = ${task.id} AND status IN ('processing', 'pending')
          AND checks = ${task.checks}`

    const settle = (task: Task, status: "failed" | "processing", message: string, progressValue: number) =>
      sql`
        UPDATE nfce_invoices SET status = ${status}, message = ${message}, progress = ${progressValue},
          updated_at = now(), completed_at = CASE WHEN ${status} = 'failed' THEN now() END
        WHERE ${current(task)}`

    const settingsOfTask = (task: Task) =>
      sql<{ settings: Record<string, unknown> }>`SELECT settings FROM empresas WHERE id = ${task.empresa_id}`.pipe(
        Effect.map(([empresa]) => settingsOf(empresa!))
      )

    /** Settles a task that earns nothing: an online one fails, an offline one is reversed. */
    const refuse = (task: Task, reason: string, settings: Settings) =>
      task.qr.offline === null
        ? settle(task, "failed", reason, 100)
        : reverse(task, `Nothing credited: ${reason}`, pointsFor(task.qr.offline.total_cents, settings.points_per_real))

    /**
     * Credits the confirmed invoice and completes the task in one transaction, through the one
     * credit path (ledger, timeline, a waiting referral); a task already settled is left. A total
     * the store does not accept, or points the client's balance has no room for, settle it as
     * failed (online) or reversed (offline) instead: a refusal that no retry would change.
     */
    const complete = (task: Task, confirmation: Confirmation) =>
      Effect.gen(function* () {
        const settings = yield* settingsOfTask(task)
        const refusal = totalRefusal(confirmation.total_cents, settings)
        if (refusal !== undefined) return yield* inTransaction(sql)(refuse(task, refusal.msg, settings))
        yield* creditInvoice(task, confirmation, settings).pipe(
          Effect.catchTag("ValidationFailed", (full) =>
            inTransaction(sql)(refuse(task, full.issues.map((issue) => issue.msg).join("; "), settings))
          )
        )
      })

    /** The credit of a confirmed invoice, with the task's completion, in one transaction. */
    const creditInvoice = (task: Task, confirmation: Confirmation, settings: Settings) =>
      inTransaction(sql)(
        Effect.gen(function* () {
          const credited = pointsFor(confirmation.total_cents, settings.points_per_real)
          const valor = confirmation.total_cents / 100
          // The conditional update takes the task's row lock: a second delivery of the job credits nothing.
          const claimed = yield* sql`
            UPDATE nfce_invoices SET status = 'completed', progress = 100, valor_total = ${valor},
              items_count = ${confirmation.items_count}, issued_at = ${confirmation.issued_at}::timestamptz,
              points_credited = ${credited}, pending_points = NULL, confirmed_by = ${confirmation.by},
              message = ${`Credited ${credited} points`}, completed_at = now(), updated_at = now()
            WHERE ${current(task)}
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
                {
                  nfce_id: task.id,
                  valor_total: valor,
                  items_count: confirmation.items_count,
                  confirmed_by: confirmation.by
                }
              )
              // The task names its client, which the foreign key keeps: a missing one is a bug, not a retry.
              .pipe(Effect.catchTag("NotFound", Effect.die))
          )
        })
      )

    /** Gives up on an unconfirmed offline receipt: nothing was spendable, so only the task and the timeline say so. */
    const reverse = (task: Task, reason: string, pendingPoints: number) =>
      Effect.gen(function* () {
        const reversed = yield* sql`
          UPDATE nfce_invoices SET status = 'reversed', progress = 100, message = ${reason},
            pending_points = ${pendingPoints}, completed_at = now(), updated_at = now()
          WHERE ${current(task)}
          RETURNING id`
        if (reversed.length === 0) return
        yield* recordEvent({
          empresaId: task.empresa_id,
          clientId: task.client_id,
          type: "purchase",
          title: `${pendingPoints} pending points reversed`,
          description: reason,
          metadata: { nfce_id: task.id, reversed_points: pendingPoints, status: "reversed" }
        })
      })

    /**
     * Leaves an offline receipt pending until its next look at the page, in one transaction with
     * that look's job, so a second delivery of this try finds `checks` moved on and queues none.
     * The first time, the timeline tells the client the points are coming but not yet theirs.
     */
    const wait = (task: Task, pendingPoints: number, confirmBy: Date, now: Date, note: string) =>
      inTransaction(sql)(
        Effect.gen(function* () {
          const message =
            `${pendingPoints} points pending: waiting for the state to confirm this offline receipt ` +
            `until ${confirmBy.toISOString()}${note}`
          const moved = yield* sql`
            UPDATE nfce_invoices SET status = 'pending', progress = 50, checks = checks + 1,
              pending_points = ${pendingPoints}, confirm_by = ${confirmBy}, message = ${message}, updated_at = now()
            WHERE ${current(task)}
            RETURNING id`
          if (moved.length === 0) return
          const remaining = (confirmBy.getTime() - now.getTime()) / 1000
          yield* jobs.enqueue({
            queue: NFCE_QUEUE,
            payload: { empresa_id: task.empresa_id, task_id: task.id, check: task.checks + 1 },
            delaySeconds: recheckDelay(task.checks, remaining, nfceOffline)
          })
          if (task.status === "processing" && pendingPoints > 0)
            yield* recordEvent({
              empresaId: task.empresa_id,
              clientId: task.client_id,
              type: "purchase",
              title: `${pendingPoints} points pending`,
              description: "Offline receipt: its points can be spent once the state confirms it",
              metadata: { nfce_id: task.id, pending_points: pendingPoints, confirm_by: confirmBy.toISOString() }
            })
        })
      )

    /**
     * One look at an offline receipt: the store's own proof first (no fetch), then the state's page;
     * unconfirmed, it waits for the next look, or is reversed once its deadline has passed.
     */
    const checkOffline = (task: Task, offline: NonNullable<DecodedQr["offline"]>) =>
      Effect.gen(function* () {
        const proof: ProofVerdict = yield* proofs.verdict(task.empresa_id, task.qr)
        const own = { total_cents: offline.total_cents, items_count: null, issued_at: offline.issue_date }
        if (proof === "confirmed") {
          yield* complete(task, { ...own, by: task.qr.layout === "v2_offline" ? "csc" : "signature" })
          return { outcome: `confirmed by the store's ${task.qr.layout === "v2_offline" ? "CSC" : "certificate"}` }
        }
        const outcome = yield* gateway.fetchInvoice(task.qr)
        if (outcome.status === "ok") {
          yield* complete(task, { ...outcome, by: "state_page" })
          return { outcome: "confirmed by the state's page" }
        }
        const settings = yield* settingsOfTask(task)
        const pendingPoints = pointsFor(offline.total_cents, settings.points_per_real)
        const confirmBy = confirmByOf(offline.issue_date, nfceOffline)
        const now = new Date(yield* Clock.currentTimeMillis)
        if (now.getTime() >= confirmBy.getTime()) {
          yield* inTransaction(sql)(
            reverse(task, reversalReason(outcome.status, proof, pendingPoints, confirmBy), pendingPoints)
          )
          return { outcome: `reversed: ${outcome.status}: ${outcome.detail}` }
        }
        const note = proof === "mismatch" ? "; its own hash or signature does not match what the store registered" : ""
        yield* wait(task, pendingPoints, confirmBy, now, note)
        return { outcome: `pending: ${outcome.status}: ${outcome.detail}` }
      })

    /**
     * One try of a scan task. Online: the gateway's outcome settles it, except `unavailable`, retried
     * with the jobs' backoff. Offline: a look that confirms it, or leaves it pending (`checkOffline`).
     */
    const run = (job: ClaimedJob) =>
      Effect.gen(function* () {
        const {
          empresa_id,
          task_id,
          check = 0
        } = job.payload as {
          empresa_id: EmpresaId
          task_id: string
          check?: number
        }
        const [task] = yield* sql<Task>`
          UPDATE nfce_invoices SET attempts = attempts + 1, progress = GREATEST(progress, 25), updated_at = now(),
            message = CASE WHEN status = 'processing' THEN 'Asking the state for the invoice' ELSE message END
          WHERE empresa_id = ${empresa_id} AND id = ${task_id} AND status IN ('processing', 'pending')
            AND checks = ${check}
          RETURNING empresa_id, id, client_id, status, qr, checks`
        if (task === undefined) return { outcome: "already settled" }
        if (task.qr.offline !== null) return yield* checkOffline(task, task.qr.offline)
        const outcome = yield* gateway.fetchInvoice(task.qr)
        switch (outcome.status) {
          case "ok":
            yield* complete(task, { ...outcome, by: "state_page" })
            return { outcome: "completed" }
          case "unavailable":
            yield* settle(task, "processing", "The state's invoice page is unavailable; trying again soon", 50)
            return yield* new JobFailed({ message: outcome.detail })
          default:
            yield* settle(task, "failed", failureMessage(outcome.status), 100)
            return { outcome: `${outcome.status}: ${outcome.detail}` }
        }
      }).pipe(Effect.catchTag("SqlError", (error) => new JobFailed({ message: error.message })))

    /** A task whose tries all failed: an online one fails; an offline one is reversed, as it cannot be checked. */
    const onDead = (job: ClaimedJob) =>
      Effect.gen(function* () {
        const { task_id } = job.payload as { task_id: string }
        yield* sql`
          UPDATE nfce_invoices SET status = 'failed', progress = 100, completed_at = now(), updated_at = now(),
            message = 'The state never answered for this invoice; scan it again later to retry, or ask the store'
          WHERE id = ${task_id} AND status = 'processing' AND (qr->'offline') = 'null'::jsonb`
        const [task] = yield* sql<Task & { pending_points: number | null }>`
          SELECT empresa_id, id, client_id, status, qr, checks, pending_points FROM nfce_invoices
          WHERE id = ${task_id} AND status IN ('processing', 'pending')`
        if (task !== undefined)
          yield* reverse(
            task,
            "Nothing credited: this offline receipt could not be checked; scan it again later to retry",
            task.pending_points ?? 0
          )
      }).pipe(Effect.orDie)

    /** The empresa's scanned receipts, newest first; `from`/`to` bound when they were scanned. */
    const invoices = traced("Nfce.invoices")(function* (empresaId: EmpresaId, input: ListInvoicesInput) {
      const rows = yield* sql<NfceInvoice & { total: number }>`
        SELECT id, access_key, status, progress, message, client_id, valor_total::float8 AS valor_total,
               items_count, points_credited, pending_points, confirmed_by, confirm_by, issued_at, created_at,
               completed_at, count(*) OVER ()::int AS total
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
      ...sqlErrorsAsDefects({ scan, progress, invoices }),
      /** The `nfce` queue's handler. */
      handler: {
        queue: NFCE_QUEUE,
        run: (job) => run(job).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
        onDead: (job) => onDead(job).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      } satisfies JobHandler
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
