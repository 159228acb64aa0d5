import { configFromEnv, DEFAULT_MAX_BODY_BYTES, type CoreConfig } from "@fidelis/core"
import { z } from "zod"

export interface ServerConfig {
  readonly core: CoreConfig
  readonly port: number
  readonly host: string
  /** Seed a demo empresa on the first start of an empty embedded database. */
  readonly demo: boolean
  /** Browser origins allowed to call /mcp (DNS-rebinding protection); requests without Origin pass. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Seconds to let in-flight requests finish on SIGTERM. */
  readonly shutdownGraceSeconds: number
  /** Lists the MCP conformance suite's fixture tools (FIDELIS_MCP_CONFORMANCE_FIXTURES=1, tests only). */
  readonly mcpConformanceFixtures: boolean
  /** Largest request body read on any surface; larger ones are refused with 413. */
  readonly maxBodyBytes: number
}

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  FIDELIS_DEMO: z.string().optional(),
  FIDELIS_ALLOWED_ORIGINS: z.string().optional(),
  FIDELIS_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
  FIDELIS_MCP_CONFORMANCE_FIXTURES: z.string().optional(),
  FIDELIS_MAX_BODY_BYTES: z.coerce.number().int().positive().default(DEFAULT_MAX_BODY_BYTES)
})

export const serverConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): ServerConfig => {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    throw new Error(
      `Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`
    )
  }
  const e = parsed.data
  const origins = (e.FIDELIS_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)
  return {
    core: configFromEnv(env),
    port: e.PORT,
    host: e.HOST,
    demo: e.FIDELIS_DEMO !== "0" && e.FIDELIS_DEMO !== "false",
    allowedOrigins: origins,
    shutdownGraceSeconds: e.FIDELIS_SHUTDOWN_GRACE_SECONDS,
    mcpConformanceFixtures: e.FIDELIS_MCP_CONFORMANCE_FIXTURES === "1",
    maxBodyBytes: e.FIDELIS_MAX_BODY_BYTES
  }
}
