import { TRPCError } from "@trpc/server"
import { Effect } from "effect"
import { z, ZodError } from "zod"
import {
  admitAdminCall,
  admitCompanyCall,
  admitStaffCall,
  admitUserCall,
  countAccountCall,
  challenge,
  countAddress
} from "./admission.js"
import type { CoreConfig } from "./config.js"
import type { OwedCount } from "./context.js"
import { BadRequest, type Conflict, type DomainError } from "./errors.js"
import type { EmpresaId } from "./ids.js"
import { IDEMPOTENCY_KEY } from "./idempotency-key.js"
import { Idempotency } from "./idempotency.js"
import {
  malformedJson,
  NUL_MESSAGE,
  NUL_TYPE,
  nulCharacterIssues,
  rootOfField,
  validationError,
  validationIssues
} from "./problem.js"
import { StaffTarget, type TeamRole } from "./roles.js"
import { refusal, runProgram, t, type HeldTo, type ProcedureContext } from "./run.js"
import type { CoreServices } from "./services.js"

/*
 * The procedure builders every area's router uses: one per scope, each admitting its callers
 * (admission.ts) before the procedure runs (run.ts).
 */

export { callerAddress } from "./admission.js"
export { createCallerFactory, mergeRouters, refuses, router, runEffect, UNNAMED_REQUEST } from "./run.js"

/**
 * What every procedure does around its call, in one middleware (each level of tRPC's chain copies
 * the call's options twice: docs/performance.md):
 * - A procedure that is not `batchable` is refused with 400 in a request carrying other calls,
 *   before anything runs: a batch of logins would otherwise check many passwords in one request.
 * - The input is refused for a NUL character in any string when it is first read (so after
 *   authentication), on every surface: Postgres cannot store one, and zod lets it through. A body
 *   tRPC cannot parse is refused there too, saying where it broke.
 * - The call gets the place where a budget count it owes waits (`owe`): its procedure's program
 *   makes it, in the same run. A call that ends without running one (refused by validation, say)
 *   makes it here, and a refusal of the budget then takes the place of the call's own outcome, as
 *   it would have had the count been made first.
 * - zod's input failures become the spec's 422, `loc` rooted where each field travelled.
 */
const base = t.procedure.use(async ({ ctx, meta, next, getRawInput, path }) => {
  if (meta?.batchable === false && (ctx.calls ?? 1) > 1) {
    throw refusal(
      new BadRequest({ message: `${path} cannot share a request with other calls: send it alone, not in a batch` })
    )
  }
  const owed: OwedCount = { count: undefined }
  // tRPC's types take a new context or a new raw input per `next`; its chain takes both at once.
  const downstream = {
    ctx: { owed },
    getRawInput: async () => {
      const input = await getRawInput().catch((error: unknown) => {
        // tRPC wraps its JSON.parse failure in a 400 that repeats the parser's words.
        const syntax = error instanceof TRPCError ? error.cause : error
        throw syntax instanceof SyntaxError ? malformedJson(ctx.rawInput?.(), syntax) : error
      })
      const issues = nulCharacterIssues(input, meta)
      if (issues.length === 0) return input
      throw validationError(issues)
    }
  }
  const result = await next(downstream)
  if (owed.count !== undefined) await runProgram({ ...ctx, owed }, Effect.void)
  if (!result.ok && result.error.code === "BAD_REQUEST" && result.error.cause instanceof ZodError) {
    const input = await getRawInput().catch(() => undefined)
    throw validationError(validationIssues(result.error.cause, meta, input))
  }
  return result
})

/**
 * Routes anyone may call without a key (the public survey routes); each call counts per client
 * address (FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE).
 */
export const publicProcedure = base.meta({ scope: "public" }).use(async ({ ctx, next }) => {
  await countAddress(ctx, (config) => config.publicRateLimitPerMinute)
  return next()
})

/**
 * A public route whose calls count against a per-client-address budget of its own instead of the
 * survey routes' (`family` names the routes that share one, `limitOf` reads it from the config);
 * past it, 429 with Retry-After.
 */
export const ipLimitedProcedure = (family: string, limitOf: (config: CoreConfig) => number) =>
  base.meta({ scope: "public", rateLimit: "ip" }).use(async ({ ctx, next }) => {
    await countAddress(ctx, limitOf, family)
    return next()
  })

/**
 * Company API: runs in the context of the key's empresa; the caller never chooses the tenant. An
 * admin may act on one empresa by naming it (Fidelis-Empresa header, CLI --empresa).
 */
export const companyProcedure = base
  .meta({ scope: "empresa" })
  .use(async ({ ctx, next }) => next({ ctx: await admitCompanyCall(ctx) }))

/** Platform administration: admin-scope keys and FIDELIS_ADMIN_KEY only. */
export const adminProcedure = base
  .meta({ scope: "admin" })
  .use(async ({ ctx, next }) => next({ ctx: { principal: await admitAdminCall(ctx) } }))

/** The end-user API with a bearer access token: the user is the context's `userId`. */
export const userProcedure = base
  .meta({ scope: "user" })
  .use(async ({ ctx, next }) => next({ ctx: { userId: await admitUserCall(ctx) } }))

/**
 * A staff route of the end-user API (`/admin/…`; docs/decisions.md "Staff routes"): a bearer
 * procedure for users on an empresa's team with at least the role `needed` (operator < manager <
 * admin). Its input is `shape` plus an optional `empresa_id`, the empresa acted on (needed only by
 * a user on several teams); the handler reads it as `ctx.staff.empresaId`, with the caller's
 * `role`. A user with no role there, or a lower one, gets 403 naming the role needed.
 */
export const staffProcedure = <const S extends z.ZodRawShape = {}>(needed: TeamRole, shape?: S) =>
  userProcedure
    .meta({ staffRole: needed })
    .input(z.strictObject({ ...StaffTarget, ...(shape as S) }))
    .use(async ({ ctx, input, meta, next }) => {
      const root = rootOfField(meta)("empresa_id")
      // The input's type is generic in `shape`, but `empresa_id` is always there (StaffTarget).
      const { empresa_id } = input as { readonly empresa_id?: EmpresaId }
      const staff = await admitStaffCall(ctx, empresa_id, needed, root)
      return next({ ctx: { staff } })
    })

/**
 * The end-user API's routes that take no token (register, login, refresh, logout, email links),
 * counted per address; each must come as a request of its own (not `batchable`).
 */
export const accountProcedure = base.meta({ scope: "account", batchable: false }).use(async ({ ctx, next }) => {
  await countAccountCall(ctx)
  const result = await next()
  // A refused login or refresh sent no token to find invalid: the challenge names the scheme only.
  if (!result.ok && result.error.code === "UNAUTHORIZED") Effect.runSync(challenge(ctx))
  return result
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
const idempotencyKeyChecked = t.middleware(async ({ ctx, next }) => {
  const problem = ctx.idempotencyKey === undefined ? undefined : idempotencyKeyProblem(ctx.idempotencyKey)
  if (problem !== undefined) {
    throw validationError([{ loc: ["header", IDEMPOTENCY_KEY.header], ...problem }])
  }
  return next()
})

/** Company writes whose X-Idempotency-Key replays the first result (`runIdempotent`). */
export const idempotentCompanyProcedure = companyProcedure.meta({ idempotent: "replay" }).use(idempotencyKeyChecked)

/**
 * Public writes whose X-Idempotency-Key identifies one filled-in form: a second one with the same
 * key is refused (spec 4.3, submission rule 3), by the program's own unique constraint.
 */
export const deduplicatedPublicProcedure = publicProcedure.meta({ idempotent: "reject" }).use(idempotencyKeyChecked)

/**
 * Runs a company write at most once per X-Idempotency-Key (docs/architecture.md, "Storage"): the program and
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
