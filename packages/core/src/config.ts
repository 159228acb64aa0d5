import { MEMORY } from "@fidelis/db"
import { Context, Layer, Redacted } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { dirname, join, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { z } from "zod"
import { parseTrustedProxies, type TrustedProxies } from "./address.js"
import { adminKeyProblem } from "./admin-key.js"

/** Everything the core reads from the environment, parsed once at startup. */
export interface CoreConfig {
  /** `postgres://…` for a real server; undefined for the embedded PGlite. */
  readonly databaseUrl: string | undefined
  /**
   * DATABASE_DIRECT_URL: the same database reached without a transaction pooler, for what a pooler
   * cannot carry (LISTEN). Set only when DATABASE_URL is a pooler such as PgBouncer; read it through
   * `directDatabaseUrl`.
   */
  readonly databaseDirectUrl?: string | undefined
  /** FIDELIS_TRACING=1: services' spans are recorded, so a 5xx's logged cause names the calls it failed in. */
  readonly tracing: boolean
  /** Where the embedded database lives, an absolute path (see `resolveDataDir`); `memory://` for a throwaway one. */
  readonly dataDir: string
  /**
   * A migrated PGlite cluster (a `dumpDataDir` tarball) a `memory://` database starts from instead of
   * an empty one (FIDELIS_EMBEDDED_TEMPLATE): the test suites' throwaway servers start in a second.
   */
  readonly embeddedTemplate: string | undefined
  /**
   * `redis://…`: the rate limits count in Redis (one budget across every process that shares it);
   * undefined: in Postgres, or in memory on the embedded database.
   */
  readonly redisUrl?: string | undefined
  /** Accepted as an admin-scope key so a fresh install can bootstrap. */
  readonly adminKey: Redacted.Redacted<string> | undefined
  /** Requests per minute per company API key (spec section 8). */
  readonly rateLimitPerMinute: number
  /** Requests per minute per admin key; higher, since support tooling scripts against it. */
  readonly adminRateLimitPerMinute: number
  /** How long an idempotency record is kept (docs/architecture.md, "Storage": 24 h). */
  readonly idempotencyTtlSeconds: number
  /**
   * Test-only: how far ahead of the database's now() redemption deadlines and email links are judged, so a test can
   * start a second server "days later" on the same database. 0 in production.
   */
  readonly clockOffsetSeconds: number
  /** How often each process runs the housekeeping sweep (expired redemptions, idempotency, rate limits). */
  readonly housekeepingSeconds: number
  /** Requests per minute per client address on the public routes (spec 8 leaves the number open). */
  readonly publicRateLimitPerMinute: number
  /** Failed API key authentications a client address may make per minute before its keys meet 429. */
  readonly keyFailuresPerMinute: number
  /** Proxies whose `X-Forwarded-For` names the client (FIDELIS_TRUSTED_PROXIES); none by default. */
  readonly trustedProxies: TrustedProxies
  /**
   * Absolute base URL the public reaches this server at (links in emails, the OpenAPI server),
   * without a trailing slash; undefined: derived from the listen address (`publicUrlOf`).
   */
  readonly publicUrl: string | undefined
  /** Email and its background jobs. */
  readonly email: EmailConfig
  readonly jobs: JobsConfig
  /** The end-user API's accounts and sessions. */
  readonly accounts: AccountsConfig
  /**
   * Test-only (FIDELIS_NFCE_GATEWAY=fixture:<file>): a JSON file of gateway outcomes by access key
   * replaces the states' pages; undefined in production, where the real gateway fetches them.
   */
  readonly nfceFixtureFile?: string | undefined
  /** When offline (contingency) receipts are checked again and given up on. */
  readonly nfceOffline: NfceOfflineConfig
  /**
   * FIDELIS_SECRET_KEY, 32 bytes in base64: seals secrets kept at rest (`Secrets`); undefined: the
   * server stores none.
   */
  readonly secretKey: Redacted.Redacted<string> | undefined
}

export interface NfceOfflineConfig {
  /** How long after the end of its issue day an offline receipt may wait for the state's page. */
  readonly windowSeconds: number
  /** Wait before the second look at the state's page; each further one waits twice as long, up to the max. */
  readonly recheckBaseSeconds: number
  readonly recheckMaxSeconds: number
}

export interface AccountsConfig {
  /** Signs access tokens (HS256); undefined: keys generated once and kept in the database. */
  readonly jwtSecret: Redacted.Redacted<string> | undefined
  /** Access-token lifetime; spec 5.6 says one hour, tests shorten it to watch one expire. */
  readonly accessTokenSeconds: number
  /** scrypt's cost N as a power of two: 17 (OWASP) in production; tests lower it to stay fast. */
  readonly passwordCost: number
  /** Password hashes computed at once (each takes a core, and 128 MiB at cost 17): the machine's cores by default. */
  readonly hashConcurrency: number
  /** Password hashes that may wait for one of those; past them a request is refused with 503 and Retry-After. */
  readonly hashQueue: number
  /** Failed logins of one account before each further try waits (2, 4, 8… seconds). */
  readonly loginSlowAfter: number
  /** Failed logins of one account before it is locked for `loginLockSeconds`. */
  readonly loginLockAfter: number
  /** The same two thresholds for one client address, higher since many people share one. */
  readonly loginIpSlowAfter: number
  readonly loginIpLockAfter: number
  readonly loginLockSeconds: number
  /** Failures older than this are forgotten. */
  readonly loginWindowSeconds: number
  /** Requests per minute per user on the bearer API. */
  readonly userRateLimitPerMinute: number
  /** Requests per minute per client address on the end-user API (with or without a token). */
  readonly ipRateLimitPerMinute: number
}

export interface EmailConfig {
  /** `smtp://` or `smtps://` server to send through; undefined: one .eml file per message under `<dataDir>/mail`. */
  readonly smtpUrl: Redacted.Redacted<string> | undefined
  /** The From header of every message. */
  readonly from: string
  /** Signs the tracking and unsubscribe tokens; undefined: one generated once and kept in the database. */
  readonly tokenSecret: Redacted.Redacted<string> | undefined
  /** How long a low-score alert waits before it is rendered and sent, so a contact left meanwhile is in it. */
  readonly alertGraceSeconds: number
  /** Requests per minute per client IP on the tracking and unsubscribe routes. */
  readonly rateLimitPerMinute: number
}

export interface JobsConfig {
  /** Tries before a job ends `dead`. */
  readonly maxAttempts: number
  /** Wait before the second try; each further try waits twice as long (with ±25% jitter) up to `backoffMaxSeconds`. */
  readonly backoffBaseSeconds: number
  readonly backoffMaxSeconds: number
  /** How long a claimed job is a worker's; past it (a crashed worker), another worker takes it again. */
  readonly leaseSeconds: number
}

export class Config extends Context.Tag("core/Config")<Config, CoreConfig>() {
  static readonly layer = (config: CoreConfig) => Layer.succeed(Config, config)
}

const hasWorkspaces = (dir: string) => {
  const manifest = join(dir, "package.json")
  if (!existsSync(manifest)) return false
  try {
    return "workspaces" in (JSON.parse(readFileSync(manifest, "utf8")) as object)
  } catch {
    return false
  }
}

/**
 * The directory a relative data path means: in a checkout, the repository root (the nearest
 * package.json with `workspaces` above this file), whichever subfolder the server or the CLI was
 * started from; installed as a package (under node_modules), or with no workspace root above it,
 * the working directory. docs/decisions.md, "One data directory".
 */
export const projectRoot = (self: string = fileURLToPath(import.meta.url), cwd: string = process.cwd()): string => {
  if (self.split(sep).includes("node_modules")) return cwd
  for (let dir = dirname(self); ; dir = dirname(dir)) {
    if (hasWorkspaces(dir)) return dir
    if (dirname(dir) === dir) return cwd
  }
}

/** FIDELIS_DATA_DIR as an absolute path: a relative one (the default `data` too) is under `projectRoot()`. */
export const resolveDataDir = (value: string, root: string = projectRoot()): string =>
  value === MEMORY ? value : resolve(root, value)

/**
 * Password hashes that may wait per hashing slot by default: at cost 17 one takes about 0.2 s, so
 * no login waits much more than a second for the queue before it is refused.
 */
const HASHES_WAITING_PER_CORE = 4

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)
const positiveSeconds = (fallback: number) => z.coerce.number().positive().max(86_400).default(fallback)
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value))

/** An absolute http(s) URL without a trailing slash: links are built by appending a path. */
const PublicUrl = z
  .url({ protocol: /^https?$/, error: "FIDELIS_PUBLIC_URL must be an absolute http:// or https:// URL" })
  .refine((value) => !/[?#]/.test(value), "FIDELIS_PUBLIC_URL must not carry a query or fragment")
  .transform((value) => value.replace(/\/+$/, ""))

const postgresUrl = (name: string) =>
  z
    .string()
    .regex(/^postgres(ql)?:\/\//, `${name} must be a postgres:// URL`)
    .optional()
    .or(z.literal("").transform(() => undefined))

const EnvSchema = z.object({
  DATABASE_URL: postgresUrl("DATABASE_URL"),
  DATABASE_DIRECT_URL: postgresUrl("DATABASE_DIRECT_URL"),
  FIDELIS_DATA_DIR: z.string().min(1).default("data"),
  FIDELIS_EMBEDDED_TEMPLATE: optionalText,
  REDIS_URL: optionalText.pipe(
    z
      .string()
      .regex(/^rediss?:\/\/[^/]/, "REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379")
      .optional()
  ),
  FIDELIS_TRACING: z.enum(["0", "1", "false", "true"]).default("0"),
  FIDELIS_ADMIN_KEY: z
    .string()
    .superRefine((key, ctx) => {
      const problem = adminKeyProblem(key)
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem })
    })
    .optional(),
  FIDELIS_RATE_LIMIT_PER_MINUTE: positiveInt(60),
  FIDELIS_ADMIN_RATE_LIMIT_PER_MINUTE: positiveInt(600),
  FIDELIS_IDEMPOTENCY_TTL_SECONDS: positiveInt(24 * 60 * 60),
  FIDELIS_CLOCK_OFFSET_SECONDS: z.coerce.number().int().min(0).default(0),
  FIDELIS_HOUSEKEEPING_SECONDS: positiveInt(60),
  FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: positiveInt(60),
  FIDELIS_KEY_FAILURES_PER_MINUTE: positiveInt(20),
  FIDELIS_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((value, ctx) => {
      const parsed = parseTrustedProxies(value)
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed })
        return z.NEVER
      }
      return parsed
    }),
  FIDELIS_PUBLIC_URL: PublicUrl.optional().or(z.literal("").transform(() => undefined)),
  FIDELIS_SMTP_URL: optionalText.pipe(
    z
      .string()
      .regex(/^smtps?:\/\/[^/]/, "FIDELIS_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://127.0.0.1:2525")
      .optional()
  ),
  FIDELIS_MAIL_FROM: z.string().min(3).default("Fidelis <no-reply@localhost>"),
  FIDELIS_EMAIL_TOKEN_SECRET: optionalText.pipe(
    z.string().min(32, "FIDELIS_EMAIL_TOKEN_SECRET must be at least 32 characters").optional()
  ),
  FIDELIS_ALERT_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(120),
  FIDELIS_EMAIL_RATE_LIMIT_PER_MINUTE: positiveInt(120),
  FIDELIS_JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  FIDELIS_JOB_BACKOFF_BASE_SECONDS: positiveSeconds(30),
  FIDELIS_JOB_BACKOFF_MAX_SECONDS: positiveSeconds(3600),
  FIDELIS_JOB_LEASE_SECONDS: positiveSeconds(120),
  FIDELIS_JWT_SECRET: optionalText.pipe(
    z.string().min(32, "FIDELIS_JWT_SECRET must be at least 32 characters").optional()
  ),
  FIDELIS_ACCESS_TOKEN_SECONDS: positiveInt(3600),
  FIDELIS_PASSWORD_COST: z.coerce.number().int().min(10).max(20).default(17),
  FIDELIS_PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  FIDELIS_PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(100_000).optional(),
  FIDELIS_LOGIN_SLOW_AFTER: positiveInt(5),
  FIDELIS_LOGIN_LOCK_AFTER: positiveInt(10),
  FIDELIS_LOGIN_IP_SLOW_AFTER: positiveInt(20),
  FIDELIS_LOGIN_IP_LOCK_AFTER: positiveInt(100),
  FIDELIS_LOGIN_LOCK_SECONDS: positiveInt(15 * 60),
  FIDELIS_LOGIN_WINDOW_SECONDS: positiveInt(60 * 60),
  FIDELIS_USER_RATE_LIMIT_PER_MINUTE: positiveInt(120),
  FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE: positiveInt(300),
  FIDELIS_NFCE_GATEWAY: optionalText.pipe(
    z
      .string()
      .regex(/^fixture:.+/, "FIDELIS_NFCE_GATEWAY takes only fixture:<path to a JSON file>, for tests")
      .optional()
  ),
  FIDELIS_NFCE_OFFLINE_WINDOW_SECONDS: z.coerce
    .number()
    .min(0)
    .max(90 * 86_400)
    .default(7 * 86_400),
  FIDELIS_NFCE_RECHECK_BASE_SECONDS: positiveSeconds(600),
  FIDELIS_NFCE_RECHECK_MAX_SECONDS: positiveSeconds(6 * 3600),
  FIDELIS_SECRET_KEY: optionalText.pipe(
    z
      .string()
      .refine(
        (value) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, "base64").length === 32,
        "FIDELIS_SECRET_KEY must be 32 random bytes in base64, e.g. the output of: openssl rand -base64 32"
      )
      .optional()
  )
})

/** Parses the environment; throws one readable error naming every bad variable. */
export const configFromEnv = (env: NodeJS.ProcessEnv = process.env): CoreConfig => {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)
    throw new Error(`Invalid configuration: ${lines.join("; ")}`)
  }
  const e = parsed.data
  const hashConcurrency = e.FIDELIS_PASSWORD_HASH_CONCURRENCY ?? availableParallelism()
  if (e.DATABASE_DIRECT_URL !== undefined && e.DATABASE_URL === undefined)
    throw new Error("Invalid configuration: DATABASE_DIRECT_URL: set only together with DATABASE_URL (a pooler's URL)")
  return {
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    tracing: e.FIDELIS_TRACING === "1" || e.FIDELIS_TRACING === "true",
    dataDir: resolveDataDir(e.FIDELIS_DATA_DIR),
    embeddedTemplate: e.FIDELIS_EMBEDDED_TEMPLATE,
    redisUrl: e.REDIS_URL,
    adminKey: e.FIDELIS_ADMIN_KEY ? Redacted.make(e.FIDELIS_ADMIN_KEY) : undefined,
    rateLimitPerMinute: e.FIDELIS_RATE_LIMIT_PER_MINUTE,
    adminRateLimitPerMinute: e.FIDELIS_ADMIN_RATE_LIMIT_PER_MINUTE,
    idempotencyTtlSeconds: e.FIDELIS_IDEMPOTENCY_TTL_SECONDS,
    clockOffsetSeconds: e.FIDELIS_CLOCK_OFFSET_SECONDS,
    housekeepingSeconds: e.FIDELIS_HOUSEKEEPING_SECONDS,
    publicRateLimitPerMinute: e.FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE,
    keyFailuresPerMinute: e.FIDELIS_KEY_FAILURES_PER_MINUTE,
    trustedProxies: e.FIDELIS_TRUSTED_PROXIES,
    publicUrl: e.FIDELIS_PUBLIC_URL,
    email: {
      smtpUrl: e.FIDELIS_SMTP_URL === undefined ? undefined : Redacted.make(e.FIDELIS_SMTP_URL),
      from: e.FIDELIS_MAIL_FROM,
      tokenSecret: e.FIDELIS_EMAIL_TOKEN_SECRET === undefined ? undefined : Redacted.make(e.FIDELIS_EMAIL_TOKEN_SECRET),
      alertGraceSeconds: e.FIDELIS_ALERT_GRACE_SECONDS,
      rateLimitPerMinute: e.FIDELIS_EMAIL_RATE_LIMIT_PER_MINUTE
    },
    jobs: {
      maxAttempts: e.FIDELIS_JOB_MAX_ATTEMPTS,
      backoffBaseSeconds: e.FIDELIS_JOB_BACKOFF_BASE_SECONDS,
      backoffMaxSeconds: e.FIDELIS_JOB_BACKOFF_MAX_SECONDS,
      leaseSeconds: e.FIDELIS_JOB_LEASE_SECONDS
    },
    accounts: {
      jwtSecret: e.FIDELIS_JWT_SECRET === undefined ? undefined : Redacted.make(e.FIDELIS_JWT_SECRET),
      accessTokenSeconds: e.FIDELIS_ACCESS_TOKEN_SECONDS,
      passwordCost: e.FIDELIS_PASSWORD_COST,
      hashConcurrency,
      hashQueue: e.FIDELIS_PASSWORD_HASH_QUEUE ?? HASHES_WAITING_PER_CORE * hashConcurrency,
      loginSlowAfter: e.FIDELIS_LOGIN_SLOW_AFTER,
      loginLockAfter: e.FIDELIS_LOGIN_LOCK_AFTER,
      loginIpSlowAfter: e.FIDELIS_LOGIN_IP_SLOW_AFTER,
      loginIpLockAfter: e.FIDELIS_LOGIN_IP_LOCK_AFTER,
      loginLockSeconds: e.FIDELIS_LOGIN_LOCK_SECONDS,
      loginWindowSeconds: e.FIDELIS_LOGIN_WINDOW_SECONDS,
      userRateLimitPerMinute: e.FIDELIS_USER_RATE_LIMIT_PER_MINUTE,
      ipRateLimitPerMinute: e.FIDELIS_USER_IP_RATE_LIMIT_PER_MINUTE
    },
    nfceFixtureFile: e.FIDELIS_NFCE_GATEWAY?.slice("fixture:".length),
    nfceOffline: {
      windowSeconds: e.FIDELIS_NFCE_OFFLINE_WINDOW_SECONDS,
      recheckBaseSeconds: e.FIDELIS_NFCE_RECHECK_BASE_SECONDS,
      recheckMaxSeconds: e.FIDELIS_NFCE_RECHECK_MAX_SECONDS
    },
    secretKey: e.FIDELIS_SECRET_KEY === undefined ? undefined : Redacted.make(e.FIDELIS_SECRET_KEY)
  }
}

/** The connection that bypasses any pooler (LISTEN): DATABASE_DIRECT_URL, else DATABASE_URL itself. */
export const directDatabaseUrl = (config: Pick<CoreConfig, "databaseUrl" | "databaseDirectUrl">): string | undefined =>
  config.databaseDirectUrl ?? config.databaseUrl

/** Whether DATABASE_URL is a transaction pooler: a separate direct URL says so. */
export const behindPooler = (config: Pick<CoreConfig, "databaseUrl" | "databaseDirectUrl">): boolean =>
  config.databaseUrl !== undefined && directDatabaseUrl(config) !== config.databaseUrl

/** The public base URL: FIDELIS_PUBLIC_URL, else the address the server listens on. */
export const publicUrlOf = (config: Pick<CoreConfig, "publicUrl">, listenUrl: string): string =>
  config.publicUrl ?? listenUrl.replace(/\/+$/, "")
