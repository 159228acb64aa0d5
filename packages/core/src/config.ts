import { Context, Layer, Redacted } from "effect"
import { z } from "zod"

/** Everything the core reads from the environment, parsed once at startup. */
export interface CoreConfig {
  /** `postgres://…` for a real server; undefined for the embedded PGlite. */
  readonly databaseUrl: string | undefined
  /** Where the embedded database lives; `memory://` for a throwaway one. */
  readonly dataDir: string
  /** Accepted as an admin-scope key so a fresh install can bootstrap. */
  readonly adminKey: Redacted.Redacted<string> | undefined
  /** Requests per minute per company API key (spec section 8). */
  readonly rateLimitPerMinute: number
  /** Requests per minute per admin key; higher, since support tooling scripts against it. */
  readonly adminRateLimitPerMinute: number
  /** How long an idempotency record is kept (design.md section 2: 24 h). */
  readonly idempotencyTtlSeconds: number
}

export class Config extends Context.Tag("core/Config")<Config, CoreConfig>() {
  static readonly layer = (config: CoreConfig) => Layer.succeed(Config, config)
}

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  FIDELIS_DATA_DIR: z.string().min(1).default("./data"),
  FIDELIS_ADMIN_KEY: z.string().min(16, "FIDELIS_ADMIN_KEY must be at least 16 characters").optional(),
  FIDELIS_RATE_LIMIT_PER_MINUTE: positiveInt(60),
  FIDELIS_ADMIN_RATE_LIMIT_PER_MINUTE: positiveInt(600),
  FIDELIS_IDEMPOTENCY_TTL_SECONDS: positiveInt(24 * 60 * 60)
})

/** Parses the environment; throws one readable error naming every bad variable. */
export const configFromEnv = (env: NodeJS.ProcessEnv = process.env): CoreConfig => {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)
    throw new Error(`Invalid configuration: ${lines.join("; ")}`)
  }
  const e = parsed.data
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: e.FIDELIS_DATA_DIR,
    adminKey: e.FIDELIS_ADMIN_KEY ? Redacted.make(e.FIDELIS_ADMIN_KEY) : undefined,
    rateLimitPerMinute: e.FIDELIS_RATE_LIMIT_PER_MINUTE,
    adminRateLimitPerMinute: e.FIDELIS_ADMIN_RATE_LIMIT_PER_MINUTE,
    idempotencyTtlSeconds: e.FIDELIS_IDEMPOTENCY_TTL_SECONDS
  }
}
