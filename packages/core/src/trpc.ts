import { initTRPC, TRPCError } from "@trpc/server"
import { isUnavailable } from "@fidelis/db"
import { Cause, Chunk, Effect, Exit, Option } from "effect"
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
  Forbidden,
  isDomainError,
  RateLimited,
  trpcCodeOf,
  Unavailable,
  ValidationFailed,
  type DomainError
} from "./errors.js"
import type { ProcedureMeta } from "./meta.js"
import { INTERNAL_MESSAGE, problemOf, validationIssues } from "./problem.js"
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

const refusal = (error: DomainError) => new TRPCError({ code: trpcCodeOf[error._tag], message: error.message, cause: error })

/**
 * Runs a core program for a procedure: typed refusals become their tRPC code (with the domain
 * error as cause, for the adapters' problem mapping), an unreachable database becomes
 * `Unavailable` (503); anything else is logged with the request id and surfaces as a bare 500.
 */
export const runEffect = async <A, E>(ctx: RequestContext, program: Effect.Effect<A, E, CoreServices>): Promise<A> => {
  const exit = await ctx.runtime.runPromiseExit(
    program.pipe(Effect.annotateLogs("request_id", ctx.requestId)),
    ctx.signal ? { signal: ctx.signal } : undefined
  )
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && isDomainError(failure.value)) throw refusal(failure.value)
  if (Cause.isInterruptedOnly(exit.cause)) {
    throw new TRPCError({ code: "CLIENT_CLOSED_REQUEST", message: "Request aborted" })
  }
  const unavailable = unreachable(exit.cause)
  await ctx.runtime.runPromise(
    (unavailable ? Effect.logWarning("Database unavailable", exit.cause) : Effect.logError("Unexpected failure", exit.cause)).pipe(
      Effect.annotateLogs("request_id", ctx.requestId)
    )
  )
  if (unavailable) throw refusal(new Unavailable({ retryAfter: RETRY_AFTER_SECONDS }))
  throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: INTERNAL_MESSAGE })
}

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
  ctx.authentication ??= runEffect(
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
      if (window.exceeded) return yield* new RateLimited({ retryAfter: window.retryAfter })
      return principal
    })
  )
  return ctx.authentication
}

const base = t.procedure.use(validationAs422)

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
    return runEffect(
      ctx,
      Effect.fail(
        new BadRequest({
          message: "Admin credentials act on a company only when it is named (Fidelis-Empresa header or --empresa)"
        })
      )
    )
  }
  const empresa = await runEffect(ctx, Empresas.resolve(ctx.actAsEmpresa))
  return next({ ctx: { empresaId: empresa.id, principal } })
})

/** Platform administration: admin-scope keys and FIDELIS_ADMIN_KEY only. */
export const adminProcedure = base.meta({ scope: "admin" }).use(async ({ ctx, next }) => {
  const principal = await authenticate(ctx)
  if (principal.kind !== "admin") {
    await runEffect(ctx, Effect.fail(new Forbidden({ message: "This operation needs an admin-scope API key" })))
  }
  return next({ ctx: { principal } })
})

/** Procedures that accept X-Idempotency-Key check its shape before anything runs. */
export const idempotentCompanyProcedure = companyProcedure.meta({ idempotent: true }).use(async ({ ctx, next }) => {
  const key = ctx.idempotencyKey
  if (key !== undefined && (key.length < 1 || key.length > 255)) {
    await runEffect(
      ctx,
      Effect.fail(
        new ValidationFailed({
          issues: [{ loc: ["header", "X-Idempotency-Key"], msg: "Must be 1 to 255 characters", type: "string_too_long" }]
        })
      )
    )
  }
  return next()
})

/**
 * Runs a company write at most once per X-Idempotency-Key (design.md section 2): the program and
 * its stored response share one transaction, and a replay is marked `Idempotent-Replayed: true`.
 */
export const runIdempotent = async <A, E>(
  ctx: RequestContext & { readonly empresaId: string },
  operation: string,
  request: unknown,
  program: Effect.Effect<A, E, CoreServices>
): Promise<A> => {
  const { value, replayed } = await runEffect(
    ctx,
    Effect.flatMap(Idempotency, (idempotency) =>
      idempotency.once({ empresaId: ctx.empresaId, operation, key: ctx.idempotencyKey, request }, program)
    )
  )
  if (replayed) ctx.resHeaders.set("Idempotent-Replayed", "true")
  return value
}
