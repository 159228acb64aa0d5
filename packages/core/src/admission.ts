import { Context, Effect, Either } from "effect"
import { addressBucket, clientAddress } from "./address.js"
import { count, type AdmittedKey, type Meter } from "./budgets.js"
import { Config, type CoreConfig } from "./config.js"
import type { OwedCount, RequestContext } from "./context.js"
import {
  BadRequest,
  Forbidden,
  RateLimited,
  Unauthenticated,
  type NotFound,
  type Unavailable,
  type ValidationFailed
} from "./errors.js"
import type { EmpresaId, UserId } from "./ids.js"
import type { Scope } from "./meta.js"
import { apiKeyChallenge, bearerOf, presentedKey, type Principal } from "./principal.js"
import type { FieldRoot, StaffMembership, TeamRole } from "./roles.js"
import { runProgram } from "./run.js"
import type { CoreRuntime } from "./services.js"

/*
 * Admission: who is calling and what each call costs against its budgets, before any procedure
 * runs. What it needs from the areas (an API key's grant, an access token's user, a team role, an
 * empresa named by an admin) is declared here as services, which the areas implement (their
 * index.ts provides them); so the kernel imports no area, as Effect's own examples provide a
 * `CurrentUser` through middleware.
 */

/** What a key grants: who it is, and the budget its calls count against. */
export interface Grant {
  readonly principal: Principal
  readonly bucket: string
}

/** What admission asks of the API keys area (auth). */
export class KeyAuthority extends Context.Tag("core/KeyAuthority")<
  KeyAuthority,
  {
    /** The key's grant; failures count against the address's guessing budget (docs/decisions.md "Key guessing"). */
    readonly authenticate: (
      key: string,
      address: string | undefined
    ) => Effect.Effect<Grant, Unauthenticated | Forbidden | RateLimited | Unavailable>
    /** The grant of a key verified recently, without a program; undefined when the database must answer. */
    readonly knownGrant: (key: string, address: string | undefined) => Grant | undefined
  }
>() {}

/** What admission asks of the accounts area: the user an end user's access token names. */
export class SessionAuthority extends Context.Tag("core/SessionAuthority")<
  SessionAuthority,
  {
    readonly authenticate: (token: string) => Effect.Effect<UserId, Unauthenticated>
    /** The user of a token verified recently whose session lives, without a program. */
    readonly knownUser: (token: string) => UserId | undefined
  }
>() {}

/** What a staff route asks of the team area: the caller's role in the empresa acted on. */
export class StaffAuthority extends Context.Tag("core/StaffAuthority")<
  StaffAuthority,
  {
    readonly authorize: (
      userId: UserId,
      empresaId: EmpresaId | undefined,
      needed: TeamRole,
      root: FieldRoot
    ) => Effect.Effect<StaffMembership, ValidationFailed | Forbidden>
  }
>() {}

/** What an admin acting on one empresa asks of the empresas area: the empresa its id or slug names. */
export class TenantDirectory extends Context.Tag("core/TenantDirectory")<
  TenantDirectory,
  { readonly resolve: (ref: string) => Effect.Effect<{ readonly id: EmpresaId }, NotFound> }
>() {}

/** The services admission reads without running a program, kept per runtime by the first admission. */
const admissionServices = new WeakMap<
  CoreRuntime,
  { readonly keys: KeyAuthority["Type"]; readonly sessions: SessionAuthority["Type"]; readonly config: CoreConfig }
>()

/** Keeps the services admission reads without a program, from the first admission's program. */
const keepAdmissionServices = (ctx: RequestContext) =>
  Effect.gen(function* () {
    const services = { keys: yield* KeyAuthority, sessions: yield* SessionAuthority, config: yield* Config }
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
  const grant = services.keys.knownGrant(key.right, address)
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
  if (ctx.admission.key === undefined) {
    const meter: Meter = { headers: ctx.resHeaders, shown: undefined }
    const known = countLater ? knownKey(ctx) : undefined
    if (known !== undefined) {
      ctx.admission.key = Object.assign(meter, { admitted: Promise.resolve(known), calls: 0, owed: true })
      return known.principal
    }
    const key = runProgram(
      ctx,
      Effect.gen(function* () {
        const { keys, config } = yield* keepAdmissionServices(ctx)
        const address = clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies)
        const { principal, bucket } = yield* keys.authenticate(yield* presentedKey(ctx.credentials), address)
        const admitted: AdmittedKey = { principal, bucket, limit: keyLimit(principal, config) }
        yield* count(meter, admitted)
        return admitted
      }).pipe(
        Effect.tapErrorTag("Unauthenticated", () =>
          Effect.sync(() => ctx.resHeaders.set("WWW-Authenticate", apiKeyChallenge(ctx.credentials)))
        )
      )
    )
    ctx.admission.key = Object.assign(meter, { admitted: key, calls: 0, owed: false })
  }
  return (await ctx.admission.key.admitted).principal
}

/** A request refused before any call made its owed count (a REST body too large or malformed) still counts once. */
export const settleAdmission = async (ctx: RequestContext): Promise<void> => {
  const { key: admission, user } = ctx.admission
  if (admission?.owed === true) {
    admission.owed = false
    await runProgram(ctx, count(admission, await admission.admitted))
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
export const authenticateCall = async (ctx: RequestContext): Promise<Principal> => {
  const principal = await admit(ctx, true)
  const admission = ctx.admission.key
  if (admission !== undefined && (++admission.calls > 1 || admission.owed)) {
    admission.owed = false
    await owe(ctx, count(admission, await admission.admitted))
  }
  return principal
}

/**
 * Counts one message of an admitted request that runs no procedure (an MCP `tools/list` or `ping`
 * in a JSON-RPC batch) as `authenticateCall` counts a call, so a batch of them costs what as many
 * requests would; past the budget it throws the 429. The request's own count covers its first.
 */
export const countCall = async (ctx: RequestContext): Promise<void> => {
  await authenticateCall(ctx)
}

/**
 * Makes the call owe a count against a budget: made at the start of its next program, so that
 * authentication, rate limit and procedure run as one program. Outside a call (no place to wait),
 * it is made at once.
 */
export const owe = async (ctx: RequestContext, budgetCount: OwedCount["count"] & {}) => {
  if (ctx.owed === undefined) return runProgram(ctx, budgetCount)
  const earlier = ctx.owed.count
  ctx.owed.count = earlier === undefined ? budgetCount : Effect.zipRight(earlier, budgetCount)
}

/** The request's meter of its client address's budget, shared by the calls it carries. */
const addressMeter = (ctx: RequestContext): Meter =>
  (ctx.admission.address ??= { headers: ctx.resHeaders, shown: undefined })

/**
 * Counts a public call against its client address's budget (`limitOf` reads it from the config;
 * `family` names routes with a budget of their own), shared by every server process like a key's,
 * refused with spec 7.2's 429. In-process callers trusted by construction (the local CLI) have no
 * budget; a server-side caller (a page rendered for a respondent) passes the respondent's address
 * as `peerAddress`.
 */
export const countAddress = async (ctx: RequestContext, limitOf: (config: CoreConfig) => number, family?: string) => {
  if (ctx.trustedPrincipal !== undefined) return
  const meter = addressMeter(ctx)
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
export const challenge = (ctx: RequestContext, description?: string) =>
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
  if (ctx.admission.user === undefined) {
    const meter: Meter = { headers: ctx.resHeaders, shown: undefined }
    const token = bearerOf(ctx.credentials.authorization)
    const known = token === undefined ? undefined : admissionServices.get(ctx.runtime)?.sessions.knownUser(token)
    if (known !== undefined) {
      ctx.admission.user = Object.assign(meter, { user: Promise.resolve(known), calls: 0, owed: true })
      return known
    }
    const user = runProgram(
      ctx,
      Effect.gen(function* () {
        const { sessions } = yield* keepAdmissionServices(ctx)
        if (token === undefined) {
          yield* challenge(ctx)
          return yield* new Unauthenticated({
            message: "Missing access token: send Authorization: Bearer <access_token>"
          })
        }
        const userId = yield* sessions
          .authenticate(token)
          .pipe(Effect.tapError((error) => challenge(ctx, error.message)))
        yield* countUser(ctx, meter, userId)
        return userId
      })
    )
    ctx.admission.user = Object.assign(meter, { user, calls: 0, owed: false })
  }
  return ctx.admission.user.user
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

/** The caller's client address, as the budgets see it (login throttling counts failures per address). */
export const callerAddress = (ctx: RequestContext) =>
  Effect.map(Config, (config) => clientAddress(ctx.peerAddress, ctx.forwardedFor, config.trustedProxies))

/** Admits a bearer call: the request's user, each call after the first counted against the user's budgets. */
export const admitUserCall = async (ctx: RequestContext): Promise<UserId> => {
  const userId = await admitUser(ctx)
  const admission = ctx.admission.user!
  if (++admission.calls > 1 || admission.owed) {
    admission.owed = false
    await owe(ctx, countUser(ctx, admission, userId))
  }
  return userId
}

/**
 * Company API: the empresa a call acts in, and who calls. A company key's own empresa, always;
 * an admin names one (Fidelis-Empresa header, CLI --empresa).
 */
export const admitCompanyCall = async (
  ctx: RequestContext
): Promise<{ readonly empresaId: EmpresaId; readonly principal: Principal }> => {
  const principal = await authenticateCall(ctx)
  if (principal.kind === "company") return { empresaId: principal.empresaId, principal }
  const named = ctx.actAsEmpresa
  if (named === undefined) {
    return runProgram(
      ctx,
      Effect.fail(
        new BadRequest({
          message: "Admin credentials act on a company only when it is named (Fidelis-Empresa header or --empresa)"
        })
      )
    )
  }
  const empresa = await runProgram(
    ctx,
    Effect.flatMap(TenantDirectory, (tenants) => tenants.resolve(named))
  )
  return { empresaId: empresa.id, principal }
}

/** Platform administration: admin-scope keys and FIDELIS_ADMIN_KEY only. */
export const admitAdminCall = async (ctx: RequestContext): Promise<Principal> => {
  const principal = await authenticateCall(ctx)
  if (principal.kind !== "admin") {
    await runProgram(ctx, Effect.fail(new Forbidden({ message: "This operation needs an admin-scope API key" })))
  }
  return principal
}

/** The staff member a bearer call acts as: the user's role in the empresa named (or their only one). */
export const admitStaffCall = (
  ctx: RequestContext & { readonly userId: UserId },
  empresaId: EmpresaId | undefined,
  needed: TeamRole,
  root: FieldRoot
) =>
  runProgram(
    ctx,
    Effect.flatMap(StaffAuthority, (staff) => staff.authorize(ctx.userId, empresaId, needed, root))
  )

/** Counts a call of the end-user API's routes without a token against the address's budget. */
export const countAccountCall = (ctx: RequestContext) => {
  const meter = addressMeter(ctx)
  return owe(
    ctx,
    Effect.flatMap(Config, (config) => count(meter, endUserAddressBudget(ctx, config)))
  )
}
