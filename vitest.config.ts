import { configDefaults, defineConfig } from "vitest/config"

// What tests a surface's wording, rendering or packaging rather than the database runs once: on the
// embedded run, not again on PostgreSQL. The procedures these suites drive run on PostgreSQL in the
// suites of their areas; the quick start and data-directory suites are about the embedded database itself.
const DATABASE_AGNOSTIC = [
  "test/client-package.test.ts",
  "test/survey-page.test.ts",
  "test/account-pages.test.ts",
  "test/cli-terminal.test.ts",
  "test/mcp-wording.test.ts",
  "test/logging.test.ts",
  "test/openapi-refusals.test.ts",
  "test/openapi-protocol.test.ts",
  "test/quickstart.test.ts",
  "test/data-dir.test.ts",
  "test/security/file-modes.test.ts",
  "test/security/secrets-at-rest.test.ts",
  // Security suites about what a surface prints, sends or refuses by shape, not about the database.
  "test/security/api-headers.test.ts",
  "test/security/cli-escapes.test.ts",
  "test/security/cli-key-flag.test.ts",
  "test/security/cli-redirect.test.ts",
  "test/security/docs-headers.test.ts",
  "test/security/email-line-forging.test.ts",
  "test/security/openapi-host.test.ts",
  "test/security/password-policy.test.ts",
  "test/security/url-schemes.test.ts",
  "packages/cli/test/completion.test.ts",
  "packages/cli/test/config.test.ts"
]

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env["TEST_DATABASE_URL"] ? DATABASE_AGNOSTIC : [])],
    // `npm start` and the `fidelis` binary run compiled JavaScript (scripts/build.mjs).
    globalSetup: ["test/support/build.ts"],
    // CI's log shows its tail: the slowest files end it.
    reporters: process.env["CI"] ? ["default", "./test/support/durations-reporter.ts"] : ["default"],
    // Black-box suites start real server processes and databases; two files at a time fit 2 cores.
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
    // Many tests start server processes of their own; on a busy 2-core CI machine a start alone can take
    // tens of seconds, so a test's budget is generous (a hang still ends the test).
    testTimeout: 180_000,
    hookTimeout: 120_000
  }
})
