import { initTRPC, TRPCError } from "@trpc/server"
import { isUnavailable } from "@fidelis/db"
import { Cause, Chunk, Effect, Exit, Option } from "effect"
import type { RequestContext } from "./context.js"
import {
  ERROR_KINDS,
  isDomainError,
  refusalOf,
  Unavailable,
  type DomainError,
  type Refusal,
  type RefusalsOf
} from "./errors.js"
import type { ProcedureMeta } from "./meta.js"
import { INTERNAL_MESSAGE, problemOf } from "./problem.js"
import type { CoreServices } from "./services.js"

/*
 * How a core program runs under tRPC: one tRPC instance, the error formatter every surface shares,
 * and `runProgram`, which turns a program's exit into a result or the TRPCError its refusal maps to.
 * Admission (admission.ts) and the procedure builders (trpc.ts) stand on it; nothing here knows an area.
 */

export const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces and internal messages never leave the process, in any environment.
    isDev: false,
    // `data.code` stays tRPC's own code, which tRPC clients branch on; the machine code every other
    // surface calls `code` is `data.error_code` here (docs/decisions.md, "Error codes on every surface").
    errorFormatter: ({ shape, error, ctx }) => {
      // A refusal before the context exists (a wrong media type) has no request id here: the tRPC
      // surface fills it in (`UNNAMED_REQUEST`), so no request pays for an AsyncLocalStorage.
      const { status, body } = problemOf(error, ctx?.requestId ?? UNNAMED_REQUEST)
      const message = typeof body.detail === "string" ? body.detail : shape.message
      return {
        ...shape,
        message: status >= 500 && !isDomainError(error.cause) ? INTERNAL_MESSAGE : message,
        data: {
          code: shape.data.code,
          httpStatus: status,
          path: shape.data.path,
          detail: body.detail,
          error_code: body.code,
          request_id: body.request_id
        }
      }
    }
  })

/** The request id of a tRPC error formatted before its request had a context; the surface replaces it. */
export const UNNAMED_REQUEST = ""

export const router = t.router
export const mergeRouters = t.mergeRouters
export const createCallerFactory = t.createCallerFactory

/** Long enough for a database restart or failover to finish, short enough to come back promptly. */
const RETRY_AFTER_SECONDS = 5

/** A database that cannot be reached, wherever in the cause its SqlError ended up (a failure or a defect). */
const unreachable = (cause: Cause.Cause<unknown>): boolean =>
  Chunk.some(Cause.failures(cause), isUnavailable) || Chunk.some(Cause.defects(cause), isUnavailable)

export const refusal = (error: DomainError) =>
  new TRPCError({ code: ERROR_KINDS[error._tag].trpc, message: error.message, cause: error })

/**
 * A refusal its procedure did not declare slipped past the types (a cast, a widened error type), so
 * the OpenAPI document does not list it. Logged always; outside production it also fails as a
 * defect, so the test that provokes it fails, while production still answers the refusal.
 */
const undeclaredRefusal = async (ctx: RequestContext, code: Refusal) => {
  await ctx.runtime.runPromise(
    Effect.logError(`Undeclared refusal ${code}`).pipe(
      Effect.annotateLogs({ request_id: ctx.requestId, refusal: code })
    )
  )
  if (process.env["NODE_ENV"] !== "production") {
    throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: INTERNAL_MESSAGE })
  }
}

/**
 * Runs a core program: domain errors become their tRPC code (with the error as cause, for the
 * adapters' problem mapping), an unreachable database becomes `Unavailable` (503); anything else
 * surfaces as a bare 500 whose cause the surface logs. With `declared`, a refusal outside it is an
 * undeclared refusal; middleware passes none, as its refusals belong to the scope, not to a procedure.
 */
export const runProgram = async <A, E extends DomainError>(
  ctx: RequestContext,
  program: Effect.Effect<A, E, CoreServices>,
  declared?: ReadonlyArray<Refusal>
): Promise<A> => {
  // A budget count the call still owes goes first, in the same run (`owe`).
  const owed = ctx.owed?.count
  if (owed !== undefined) ctx.owed!.count = undefined
  const exit = await ctx.runtime.runPromiseExit(
    (owed === undefined ? program : Effect.zipRight(owed, program)).pipe(
      Effect.annotateLogs("request_id", ctx.requestId)
    ),
    ctx.signal ? { signal: ctx.signal } : undefined
  )
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && isDomainError(failure.value)) {
    const error = failure.value
    const declaredAs = refusalOf(error)
    if (declared !== undefined && declaredAs !== undefined && !declared.includes(declaredAs))
      await undeclaredRefusal(ctx, declaredAs)
    throw refusal(error)
  }
  if (Cause.isInterruptedOnly(exit.cause)) {
    throw new TRPCError({ code: "CLIENT_CLOSED_REQUEST", message: "Request aborted" })
  }
  if (unreachable(exit.cause)) throw refusal(new Unavailable({ retryAfter: RETRY_AFTER_SECONDS }))
  // Not logged here: the surface logs a 5xx once, on its request's line, with this cause.
  throw new TRPCError({
    code: "INTERNAL_SERVER_ERROR",
    message: INTERNAL_MESSAGE,
    cause: new Error(loggedCause(exit.cause))
  })
}

/**
 * `Cause.pretty` with, under it, the `cause` chain of each error it holds: a SqlError's is the
 * driver's message (the relation, the constraint), which an operator needs and `pretty` leaves out.
 */
const loggedCause = (cause: Cause.Cause<unknown>) => {
  const chains = [...Cause.defects(cause), ...Cause.failures(cause)].flatMap((error) => {
    const lines: Array<string> = []
    for (let next = causeOf(error); next !== undefined && lines.length < 5; next = causeOf(next))
      lines.push(`caused by: ${next instanceof Error ? next.message : String(next)}`)
    return lines
  })
  return [Cause.pretty(cause), ...chains].join("\n")
}

const causeOf = (error: unknown): unknown => (error instanceof Error ? error.cause : undefined)

/** A procedure's context: `refuses(...)` adds the refusals it declared. */
export type ProcedureContext = RequestContext & { readonly refusals?: ReadonlyArray<Refusal> }

type Undeclared<E, C> = Exclude<RefusalsOf<E>, C extends { readonly refusals: ReadonlyArray<infer R> } ? R : never>

/** Nothing when the context declares every refusal of E; else a property no program has, naming the rest. */
export type HeldTo<E, C> = [Undeclared<E, C>] extends [never]
  ? unknown
  : { readonly undeclaredRefusals: Undeclared<E, C> }

/**
 * Declares the refusals a procedure's program may give: REST documents them (404, each 409 code)
 * and `runEffect` holds the program to them, by its type and at run time.
 */
export const refuses = <const R extends ReadonlyArray<Refusal>>(...refusals: R) =>
  t.procedure.meta({ refusals }).use(({ next }) => next({ ctx: { refusals } }))

/**
 * Runs a procedure's program. Its error type may hold only the refusals the procedure declared
 * with `refuses` (an undeclared one does not compile), plus the kinds every input or scope gives.
 */
export const runEffect = <A, E extends DomainError, C extends ProcedureContext>(
  ctx: C,
  program: Effect.Effect<A, E, CoreServices> & HeldTo<E, C>
): Promise<A> => runProgram(ctx, program, ctx.refusals ?? [])
