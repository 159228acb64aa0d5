import { initTRPC, TRPCError } from "@trpc/server"
import { isUnavailable } from "@fidelis/db"
import { Cause, Chunk, Effect, Exit, Option } from "effect"
import { ZodError } from "zod"
import { ApiKeys, presentedKey } from "./auth/service.js"
import type { Principal } from "./auth/principal.js"
import { count, type Admission, type AdmittedKey } from "./auth/admission.js"
import { Config } from "./config.js"
import type { RequestContext } from "./context.js"
import { Empresas } from "./empresas/service.js"
import { IDEMPOTENCY_KEY } from "./idempotency/key.js"
import { Idempotency } from "./idempotency/service.js"
import {
  BadRequest,
  ERROR_KINDS,
  Forbidden,
  isDomainError,
  refusalOf,
  Unavailable,
  type Conflict,
  type DomainError,
  type Refusal,
  type RefusalsOf
} from "./errors.js"
import type { ProcedureMeta } from "./meta.js"
import {
  INTERNAL_MESSAGE,
  NUL_MESSAGE,
  NUL_TYPE,
  nulCharacterIssues,
  problemOf,
  validationError,
  validationIssues
} from "./problem.js"
import type { CoreServices } from "./runtime.js"
import type { EmpresaId } from "./ids.js"

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces and internal messages never leave the process, in any environment.
    isDev: false,
    errorFormatter: ({ shape, error }) => {
      const problem = problemOf(error)
      return {
        ...shape,
        message: problem.status >= 500 && !isDomainError(error.cause) ? INTERNAL_MESSAGE : shape.message,
        data: { code: shape.data.code, httpStatus: problem.status, path: shape.data.path, detail: problem.body.detail }
      }
    }
  })

export const router = t.router
export const createCallerFactory = t.createCallerFactory

/** Long enough for a database restart or failover to finish, short enough to come back promptly. */
const RETRY_AFTER_SECONDS = 5

/** A database that cannot be reached, wherever in the cause its SqlError ended up (a failure or a defect). */
const unreachable = (cause: Cause.Cause<unknown>): boolean =>
  Chunk.some(Cause.failures(cause), isUnavailable) || Chunk.some(Cause.defects(cause), isUnavailable)

const refusal = (error: DomainError) =>
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
 * surfaces as a bare 500 whose cause the surface logs. With `declared`, a refusal outside it is an undeclared refusal; middleware passes none, as
 * its refusals belong to the scope, not to a procedure.
 */
const runProgram = async <A, E extends DomainError>(
  ctx: RequestContext,
  program: Effect.Effect<A, E, CoreServices>,
  declared?: ReadonlyArray<Refusal>
): Promise<A> => {
  const exit = await ctx.runtime.runPromiseExit(
    program.pipe(Effect.annotateLogs("request_id", ctx.requestId)),
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
    cause: new Error(Cause.pretty(exit.cause))
  })
}

/** A procedure's context: `refuses(...)` adds the refusals it declared. */
type ProcedureContext = RequestContext & { readonly refusals?: ReadonlyArray<Refusal> }

type Undeclared<E, C> = Exclude<RefusalsOf<E>, C extends { readonly refusals: ReadonlyArray<infer R> } ? R : never>

/** Nothing when the context declares every refusal of E; else a property no program has, naming the rest. */
type HeldTo<E, C> = [Undeclared<E, C>] extends [never] ? unknown : { readonly undeclaredRefusals: Undeclared<E, C> }

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

/** Rewrites zod input failures as the spec's 422, `loc` rooted where each field travelled. */
const validationAs422 = t.middleware(async ({ meta, next, getRawInput }) => {
  const result = await next()
  if (!result.ok && result.error.code === "BAD_REQUEST" && result.error.cause instanceof ZodError) {
    const input = await getRawInput().catch(() => undefined)
    throw validationError(validationIssues(result.error.cause, meta, input))
  }
  return result
})

/**
 * Authenticates the request (one key lookup, however many calls it carries) and counts it against
 * the key's budget. Surfaces that refuse a stranger before reading the body (REST writes, MCP) call
 * it first; otherwise the first procedure call does. Refusals are TRPCErrors (400, 401, 403, 429).
 */
export const admit = async (ctx: RequestContext): Promise<Principal> => {
  if (ctx.trustedPrincipal !== undefined) return ctx.trustedPrincipal
  if (ctx.admission === undefined) {
    const meter: Omit<Admission, "key"> = { calls: 0, headers: ctx.resHeaders, shown: undefined }
    const key = runProgram(
      ctx,
      Effect.gen(function* () {
        const config = yield* Config
        const { principal, bucket } = yield* ApiKeys.authenticate(yield* presentedKey(ctx.credentials))
        const limit = principal.kind === "admin" ? config.adminRateLimitPerMinute : config.rateLimitPerMinute
        const admitted: AdmittedKey = { principal, bucket, limit }
        yield* count(meter, admitted)
        return admitted
      })
    )
    ctx.admission = Object.assign(meter, { key })
  }
  return (await ctx.admission.key).principal
}

/**
 * Every procedure call counts against the key's budget, so a batch cannot buy 200 calls for the
 * price of one request; the count made when the request was admitted covers its first call.
 */
const authenticate = async (ctx: RequestContext): Promise<Principal> => {
  const principal = await admit(ctx)
  const admission = ctx.admission
  if (admission !== undefined && ++admission.calls > 1) await runProgram(ctx, count(admission, await admission.key))
  return principal
}

/**
 * Refuses a NUL character in any string of any procedure's input, on every surface, when the input
 * is first read (so after authentication): Postgres cannot store one, and zod lets it through.
 */
const refuseNulCharacters = t.middleware(({ meta, next, getRawInput }) =>
  next({
    getRawInput: async () => {
      const input = await getRawInput()
      const issues = nulCharacterIssues(input, meta)
      if (issues.length === 0) return input
      throw validationError(issues)
    }
  })
)

const base = t.procedure.use(validationAs422).use(refuseNulCharacters)

/** Routes anyone may call (public survey routes, auth). */
export const publicProcedure = base.meta({ scope: "public" })

/**
 * Company API: runs in the context of the key's empresa; the caller never chooses the tenant. An
 * admin may act on one empresa by naming it (Fidelis-Empresa header, CLI --empresa).
 */
export const companyProcedure = base.meta({ scope: "empresa" }).use(async ({ ctx, next }) => {
  const principal = await authenticate(ctx)
  if (principal.kind === "company") return next({ ctx: { empresaId: principal.empresaId, principal } })
  if (ctx.actAsEmpresa === undefined) {
    return runProgram(
      ctx,
      Effect.fail(
        new BadRequest({
          message: "Admin credentials act on a company only when it is named (Fidelis-Empresa header or --empresa)"
        })
      )
    )
  }
  const empresa = await runProgram(ctx, Empresas.resolve(ctx.actAsEmpresa))
  return next({ ctx: { empresaId: empresa.id, principal } })
})

/** Platform administration: admin-scope keys and FIDELIS_ADMIN_KEY only. */
export const adminProcedure = base.meta({ scope: "admin" }).use(async ({ ctx, next }) => {
  const principal = await authenticate(ctx)
  if (principal.kind !== "admin") {
    await runProgram(ctx, Effect.fail(new Forbidden({ message: "This operation needs an admin-scope API key" })))
  }
  return next({ ctx: { principal } })
})

/** Why an `X-Idempotency-Key` cannot be used, if it cannot. */
const idempotencyKeyProblem = (key: string) => {
  const { minLength, maxLength } = IDEMPOTENCY_KEY
  const msg = `Must be ${minLength} to ${maxLength} characters`
  if (key.length < minLength) return { msg, type: "string_too_short" }
  if (key.length > maxLength) return { msg, type: "string_too_long" }
  if (key.includes("\0")) return { msg: NUL_MESSAGE, type: NUL_TYPE }
  return undefined
}

/** Procedures that accept X-Idempotency-Key check its shape before anything runs. */
export const idempotentCompanyProcedure = companyProcedure.meta({ idempotent: true }).use(async ({ ctx, next }) => {
  const problem = ctx.idempotencyKey === undefined ? undefined : idempotencyKeyProblem(ctx.idempotencyKey)
  if (problem !== undefined) {
    throw validationError([{ loc: ["header", IDEMPOTENCY_KEY.header], ...problem }])
  }
  return next()
})

/**
 * Runs a company write at most once per X-Idempotency-Key (design.md section 2): the program and
 * its stored response share one transaction, and a replay is marked `Idempotent-Replayed: true`.
 * A duplicate still in flight is refused with IDEMPOTENCY_IN_FLIGHT, which the procedure declares.
 */
export const runIdempotent = async <
  A,
  E extends DomainError,
  C extends ProcedureContext & { readonly empresaId: EmpresaId }
>(
  ctx: C,
  operation: string,
  request: unknown,
  program: Effect.Effect<A, E, CoreServices> & HeldTo<E | Conflict<"IDEMPOTENCY_IN_FLIGHT">, C>
): Promise<A> => {
  const { value, replayed } = await runProgram(
    ctx,
    Effect.flatMap(Idempotency, (idempotency) =>
      idempotency.once({ empresaId: ctx.empresaId, operation, key: ctx.idempotencyKey, request }, program)
    ),
    ctx.refusals ?? []
  )
  if (replayed) ctx.resHeaders.set("Idempotent-Replayed", "true")
  return value
}
