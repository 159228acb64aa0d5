import type { IdempotencyMode } from "./meta.js"

/*
 * The idempotency key as every surface names and describes it; kept apart from the service (idempotency.ts)
 * so that the published tRPC client (client.ts) carries none of the server.
 */

/** How every surface names and bounds the key of an idempotent write (docs/architecture.md, "Storage"). */
export const IDEMPOTENCY_KEY = { header: "X-Idempotency-Key", minLength: 1, maxLength: 255 } as const

/** A lifetime as people read it: "24 h", "90 min", "45 s". */
const lifetimeText = (seconds: number) =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`

/**
 * What the key does, for an option's or argument's help. A `replay` key's lifetime is the server's
 * (`CoreConfig.idempotencyTtlSeconds`); a caller that cannot know it (the CLI before it has chosen
 * a server) passes none. A `reject` key (a survey response) is kept with the response, for good.
 */
export const idempotencyKeyDescription = (ttlSeconds: number | undefined, mode: IdempotencyMode = "replay") =>
  mode === "reject"
    ? "Identifies one filled-in form: a second response to the same survey with the same key is refused " +
      "with 409 and not recorded, however late it comes"
    : "Makes retries safe for " +
      `${ttlSeconds === undefined ? "as long as the server keeps keys" : lifetimeText(ttlSeconds)}: ` +
      "the same key and input replay the first result instead of acting again"
