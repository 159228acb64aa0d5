import { initTRPC, TRPCError } from "@trpc/server"
import { Cause, Effect, Exit, Option } from "effect"
import { ZodError } from "zod"
import { ApiKeys, presentedKey } from "./auth/keys.js"
import type { Principal } from "./auth/principal.js"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Config } from "./config.js"
import type { RequestContext } from "./context.js"
import { Empresas } from "./empresas/service.js"
import { Idempotency } from "./idempotency/service.js"
import {
  BadRequest,
  ERROR_KINDS,
  Forbidden,
  isDomainError,
  RateLimited,
  refusalOf,
  ValidationFailed,
  type Conflict,
  type DomainError,
  type Refusal,
  type RefusalsOf
} from "./errors.js"
import type { ProcedureMeta } from "./meta.js"
import { INTERNAL_MESSAGE, NUL_MESSAGE, NUL_TYPE, nulCharacterIssues, problemOf, validationIssues } from "./problem.js"
import type { CoreServices } from "./runtime.js"

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
        message: problem.status >= 500 ? INTERNAL_MESSAGE : shape.message,
        data: { code: shape.data.code, httpStatus: problem.status, path: shape.data.path, detail: problem.body.detail }
      }
    }
  })

export const router = t.router
export const createCallerFactory = t.createCallerFactory

/**
 * A refusal its procedure did not declare slipped past the types (a cast, a widened error type), so
 * the OpenAPI document does not list it. Logged always; outside production it also fails as a
 * defect, so the test that provokes it fails, while production still answers the refusal.
 */
const undeclaredRefusal = async (ctx: RequestContext, refusal: Refusal) => {
  await ctx.runtime.runPromise(
    Effect.logError(`Undeclared refusal ${refusal}`).pipe(Effect.annotateLogs({ request_id: ctx.requestId, refusal }))
  )
  if (process.env["NODE_ENV"] !== "production") {
    throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: INTERNAL_MESSAGE })
  }
}

/**
 * Runs a core program: domain errors become their tRPC code (with the error as cause, for the
 * adapters' problem mapping); anything else is logged with the request id and surfaces as a bare
 * 500. With `declared`, a refusal outside it is an undeclared refusal; middleware passes none, as
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
    const refusal = refusalOf(error)
    if (declared !== undefined && refusal !== undefined && !declared.includes(refusal)) await undeclaredRefusal(ctx, refusal)
    throw new TRPCError({ code: ERROR_KINDS[error._tag].trpc, message: error.message, cause: error })
  }
  if (Cause.isInterruptedOnly(exit.cause)) {
    throw new TRPCError({ code: "CLIENT_CLOSED_REQUEST", message: "Request aborted" })
  }
  await ctx.runtime.runPromise(
    Effect.logError("Unexpected failure", exit.cause).pipe(Effect.annotateLogs("request_id", ctx.requestId))
  )
  throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: INTERNAL_MESSAGE })
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
    const cause = new ValidationFailed({ issues: validationIssues(result.error.cause, meta, input) })
    throw new TRPCError({ code: "UNPROCESSABLE_CONTENT", message: cause.message, cause })
  }
  return result
})

/**
 * Authenticates once per request and counts it against its key's budget. The rate-limit headers
 * are set before any refusal so a 429 carries them too.
 */
export const authenticate = (ctx: RequestContext): Promise<Principal> => {
  if (ctx.trustedPrincipal !== undefined) return Promise.resolve(ctx.trustedPrincipal)
  ctx.authentication ??= runProgram(
    ctx,
    Effect.gen(function* () {
      const config = yield* Config
      const key = yield* presentedKey(ctx.credentials)
      const { principal, bucket } = yield* ApiKeys.authenticate(key)
      const limit = principal.kind === "admin" ? config.adminRateLimitPerMinute : config.rateLimitPerMinute
      const window = yield* RateLimiter.hit(bucket, limit)
      ctx.resHeaders.set("X-RateLimit-Limit", String(window.limit))
      ctx.resHeaders.set("X-RateLimit-Remaining", String(window.remaining))
      ctx.resHeaders.set("X-RateLimit-Reset", String(window.reset))
      if (window.exceeded) {
        ctx.resHeaders.set("Retry-After", String(window.retryAfter))
        return yield* new RateLimited({ retryAfter: window.retryAfter })
      }
      return principal
    })
  )
  return ctx.authentication
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
      const cause = new ValidationFailed({ issues })
      throw new TRPCError({ code: "UNPROCESSABLE_CONTENT", message: cause.message, cause })
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
  if (key.length < 1) return { msg: "Must be 1 to 255 characters", type: "string_too_short" }
  if (key.length > 255) return { msg: "Must be 1 to 255 characters", type: "string_too_long" }
  if (key.includes("\0")) return { msg: NUL_MESSAGE, type: NUL_TYPE }
  return undefined
}

/** Procedures that accept X-Idempotency-Key check its shape before anything runs. */
export const idempotentCompanyProcedure = companyProcedure.meta({ idempotent: true }).use(async ({ ctx, next }) => {
  const problem = ctx.idempotencyKey === undefined ? undefined : idempotencyKeyProblem(ctx.idempotencyKey)
  if (problem !== undefined) {
    await runProgram(ctx, Effect.fail(new ValidationFailed({ issues: [{ loc: ["header", "X-Idempotency-Key"], ...problem }] })))
  }
  return next()
})

/**
 * Runs a company write at most once per X-Idempotency-Key (design.md section 2): the program and
 * its stored response share one transaction, and a replay is marked `Idempotent-Replayed: true`.
 * A duplicate still in flight is refused with IDEMPOTENCY_IN_FLIGHT, which the procedure declares.
 */
export const runIdempotent = async <A, E extends DomainError, C extends ProcedureContext & { readonly empresaId: string }>(
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
