import { initTRPC, TRPCError } from "@trpc/server"
import { isUnavailable } from "@fidelis/db"
import { Cause, Chunk, Effect, Either, Exit, Option } from "effect"
import { z, ZodError } from "zod"
import { ApiKeys, apiKeyChallenge, presentedKey } from "./auth/service.js"
import { bearerOf, type Principal } from "./auth/principal.js"
import { addressBucket, clientAddress } from "./auth/address.js"
import { Accounts } from "./accounts/service.js"
import { count, type AdmittedKey, type Meter } from "./auth/admission.js"
import { Config, type CoreConfig } from "./config.js"
import type { OwedCount, RequestContext } from "./context.js"
import { Empresas } from "./empresas/service.js"
import { IDEMPOTENCY_KEY } from "./idempotency/key.js"
import { Idempotency } from "./idempotency/service.js"
import {
  BadRequest,
  ERROR_KINDS,
  Forbidden,
  isDomainError,
  refusalOf,
  Unauthenticated,
  Unavailable,
  type Conflict,
  type DomainError,
  type Refusal,
  type RefusalsOf
} from "./errors.js"
import type { ProcedureMeta, Scope } from "./meta.js"
import {
  INTERNAL_MESSAGE,
  malformedJson,
  NUL_MESSAGE,
  NUL_TYPE,
  nulCharacterIssues,
  problemOf,
  rootOfField,
  validationError,
  validationIssues
} from "./problem.js"
import type { CoreRuntime, CoreServices } from "./runtime.js"
import type { EmpresaId, UserId } from "./ids.js"
import { StaffTarget, type TeamRole } from "./team/contracts.js"
import { Team } from "./team/service.js"

const t = initTRPC
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
 * surfaces as a bare 500 whose cause the surface logs. With `declared`, a refusal outside it is an
 * undeclared refusal; middleware passes none, as its refusals belong to the scope, not to a procedure.
 */
const runProgram = async <A, E extends DomainError>(
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

/** The services admission reads without running a program, kept per runtime by the first admission. */
const admissionServices = new WeakMap<
  CoreRuntime,
  { readonly apiKeys: ApiKeys; readonly accounts: Accounts; readonly config: CoreConfig }
>()

/** Keeps the services admission reads without a program, from the first admission's program. */
const keepAdmissionServices = (ctx: RequestContext) =>
  Effect.gen(function* () {
    const services = { apiKeys: yield* ApiKeys, accounts: yield* Accounts, config: yield* Config }
    admissionServices.set(ctx.runtime, services)
    return services
  })

const keyLimit = (principal: Principal, config: CoreConfig) =>
  principal.kind === "admin" ? config.adminRateLimitPerMinute : config.rateLimitPerMinute

/** The request's key, when it is known without the database (the env admin key, or a cached lookup). */
const knownKey = (ctx: RequestContext): AdmittedKey | undefined => {
  const services = admissionServices.get(ctx.runtime)
  const key = presentedKey(ctx.credentials)
  if (services === undefined || Either.isLeft(key)) return undefined
  const address = clientAddress(ctx.peerAddress, ctx.forwardedFor, services.config.trustedProxies)
  const grant = services.apiKeys.knownGrant(key.right, address)
  return (
    grant && { principal: grant.principal, bucket: grant.bucket, limit: keyLimit(grant.principal, services.config) }
  )
}

/**
 * Authenticates the request (one key lookup, however many calls it carries) and counts it against
 * the key's budget. Surfaces that refuse a stranger before reading the body (REST writes, MCP) call
 * it first; otherwise the first procedure call does. Refusals are TRPCErrors (400, 401, 403, 429).
 * With `countLater`, a key known without the database is admitted without running a program, and
 * the request's count is owed (`owed`): its first call makes it, or `settleAdmission`.
 */
export const admit = async (ctx: RequestContext, countLater = false): Promise<Principal> => {
  if (ctx.trustedPrincipal !== undefined) return ctx.trustedPrincipal
  if (ctx.admission === undefined) {
    const meter: Meter = { headers: ctx.resHeaders, shown: undefined }
    const known = countLater ? knownKey(ctx) : undefined
    if (known !== undefined) {
      ctx.admission = Object.assign(meter, { key: Promise.resolve(known), calls: 0, owed: true })
      return known.principal
    }
    const key = runProgram(
      ctx,
      Effect.gen(function* () {
        const { apiKeys, config } = yield* keepAdmissionServices(ctx)
        const address = clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies)
        const { principal, bucket } = yield* apiKeys.authenticate(yield* presentedKey(ctx.credentials), address)
        const admitted: AdmittedKey = { principal, bucket, limit: keyLimit(principal, config) }
        yield* count(meter, admitted)
        return admitted
      }).pipe(
        Effect.tapErrorTag("Unauthenticated", () =>
          Effect.sync(() => ctx.resHeaders.set("WWW-Authenticate", apiKeyChallenge(ctx.credentials)))
        )
      )
    )
    ctx.admission = Object.assign(meter, { key, calls: 0, owed: false })
  }
  return (await ctx.admission.key).principal
}

/** A request refused before any call made its owed count (a REST body too large or malformed) still counts once. */
export const settleAdmission = async (ctx: RequestContext): Promise<void> => {
  const [admission, user] = [ctx.admission, ctx.userAdmission]
  if (admission?.owed === true) {
    admission.owed = false
    await runProgram(ctx, count(admission, await admission.key))
  }
  if (user?.owed === true) {
    user.owed = false
    await runProgram(ctx, countUser(ctx, user, await user.user))
  }
}

/**
 * Every procedure call counts against the key's budget, so a batch cannot buy 200 calls for the
 * price of one request; the request's own count covers its first call, which makes it if it is
 * still owed.
 */
const authenticate = async (ctx: RequestContext): Promise<Principal> => {
  const principal = await admit(ctx, true)
  const admission = ctx.admission
  if (admission !== undefined && (++admission.calls > 1 || admission.owed)) {
    admission.owed = false
    await owe(ctx, count(admission, await admission.key))
  }
  return principal
}

/**
 * Counts one message of an admitted request that runs no procedure (an MCP `tools/list` or `ping`
 * in a JSON-RPC batch) as `authenticate` counts a call, so a batch of them costs what as many
 * requests would; past the budget it throws the 429. The request's own count covers its first.
 */
export const countCall = async (ctx: RequestContext): Promise<void> => {
  await authenticate(ctx)
}

/**
 * Makes the call owe a count against a budget: made at the start of its next program, so that
 * authentication, rate limit and procedure run as one program. Outside a call (no place to wait),
 * it is made at once.
 */
const owe = async (ctx: RequestContext, budgetCount: OwedCount["count"] & {}) => {
  if (ctx.owed === undefined) return runProgram(ctx, budgetCount)
  const earlier = ctx.owed.count
  ctx.owed.count = earlier === undefined ? budgetCount : Effect.zipRight(earlier, budgetCount)
}

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
 * Counts a public call against its client address's budget (`limitOf` reads it from the config;
 * `family` names routes with a budget of their own), shared by every server process like a key's,
 * refused with spec 7.2's 429. In-process callers trusted by construction (the local CLI) have no
 * budget; a server-side caller (a page rendered for a respondent) passes the respondent's address
 * as `peerAddress`.
 */
const countAddress = async (ctx: RequestContext, limitOf: (config: CoreConfig) => number, family?: string) => {
  if (ctx.trustedPrincipal !== undefined) return
  const meter = (ctx.addressMeter ??= { headers: ctx.resHeaders, shown: undefined })
  await owe(
    ctx,
    Effect.flatMap(Config, (config) => {
      const bucket = addressBucket(clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies))
      return count(meter, {
        bucket: family === undefined ? bucket : `${family}:${bucket}`,
        limit: limitOf(config),
        kind: "address"
      })
    })
  )
}

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

/** The end-user API's per-address budget, shared by its routes with and without a token. */
const endUserAddressBudget = (ctx: RequestContext, config: CoreConfig) => ({
  bucket: `end-user:${addressBucket(clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies))}`,
  limit: config.accounts.ipRateLimitPerMinute
})

/** Counts one bearer call against the user's budget and the client address's, in one round trip. */
const countUser = (ctx: RequestContext, meter: Meter, userId: UserId) =>
  Effect.flatMap(Config, (config) =>
    count(
      meter,
      { bucket: `user:${userId}`, limit: config.accounts.userRateLimitPerMinute },
      endUserAddressBudget(ctx, config)
    )
  )

/**
 * RFC 6750: a request without a token is told the scheme; one with a bad token also why
 * (`error="invalid_token"`), so a client knows to refresh or log in again.
 */
const challenge = (ctx: RequestContext, description?: string) =>
  Effect.sync(() =>
    ctx.resHeaders.set(
      "WWW-Authenticate",
      description === undefined
        ? 'Bearer realm="fidelis"'
        : `Bearer realm="fidelis", error="invalid_token", error_description="${description}"`
    )
  )

/**
 * Authenticates an end user's access token once per request and counts the request against the
 * user's and the address's budgets (REST reads no body of a stranger: it calls this first). A token
 * verified recently is admitted without running a program, its count owed like a known key's.
 */
const admitUser = async (ctx: RequestContext): Promise<UserId> => {
  if (ctx.userAdmission === undefined) {
    const meter: Meter = { headers: ctx.resHeaders, shown: undefined }
    const token = bearerOf(ctx.credentials.authorization)
    const known = token === undefined ? undefined : admissionServices.get(ctx.runtime)?.accounts.knownUser(token)
    if (known !== undefined) {
      ctx.userAdmission = Object.assign(meter, { user: Promise.resolve(known), calls: 0, owed: true })
      return known
    }
    const user = runProgram(
      ctx,
      Effect.gen(function* () {
        const { accounts } = yield* keepAdmissionServices(ctx)
        if (token === undefined) {
          yield* challenge(ctx)
          return yield* new Unauthenticated({
            message: "Missing access token: send Authorization: Bearer <access_token>"
          })
        }
        const userId = yield* accounts
          .authenticate(token)
          .pipe(Effect.tapError((error) => challenge(ctx, error.message)))
        yield* countUser(ctx, meter, userId)
        return userId
      })
    )
    ctx.userAdmission = Object.assign(meter, { user, calls: 0, owed: false })
  }
  return ctx.userAdmission.user
}

/**
 * What a surface checks before reading a request's body: the key or the token its scope needs. A
 * key may be admitted with its count owed, so the surface calls `settleAdmission` if it refuses the
 * request before its call.
 */
export const admitFor = async (ctx: RequestContext, scope: Scope | undefined): Promise<void> => {
  if (scope === "user") await admitUser(ctx)
  else if (scope === "empresa" || scope === "admin") await admit(ctx, true)
}

/** The end-user API with a bearer access token: the user is the context's `userId`. */
export const userProcedure = base.meta({ scope: "user" }).use(async ({ ctx, next }) => {
  const userId = await admitUser(ctx)
  const admission = ctx.userAdmission!
  if (++admission.calls > 1 || admission.owed) {
    admission.owed = false
    await owe(ctx, countUser(ctx, admission, userId))
  }
  return next({ ctx: { userId } })
})

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
      const staff = await runProgram(ctx, Team.authorize(ctx.userId, empresa_id, needed, root))
      return next({ ctx: { staff } })
    })

/**
 * The end-user API's routes that take no token (register, login, refresh, logout, email links),
 * counted per address; each must come as a request of its own (not `batchable`).
 */
export const accountProcedure = base.meta({ scope: "account", batchable: false }).use(async ({ ctx, next }) => {
  const meter = (ctx.addressMeter ??= { headers: ctx.resHeaders, shown: undefined })
  await owe(
    ctx,
    Effect.flatMap(Config, (config) => count(meter, endUserAddressBudget(ctx, config)))
  )
  const result = await next()
  // A refused login or refresh sent no token to find invalid: the challenge names the scheme only.
  if (!result.ok && result.error.code === "UNAUTHORIZED") Effect.runSync(challenge(ctx))
  return result
})

/** The caller's client address, as the budgets see it (login throttling counts failures per address). */
export const callerAddress = (ctx: RequestContext) =>
  Effect.map(Config, (config) => clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies))

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
