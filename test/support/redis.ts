/**
 * The Redis the rate-limiter tests count in (TEST_REDIS_URL, which .ci/run sets when it started
 * one); undefined: the Redis variants do not run. Only the tests that need it pass it to a server
 * as REDIS_URL: every server sharing one Redis shares its per-address budgets too.
 */
export const testRedisUrl = (): string | undefined => process.env["TEST_REDIS_URL"] || undefined
