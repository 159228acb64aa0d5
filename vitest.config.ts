import { configDefaults, defineConfig } from "vitest/config"

// The PostgreSQL pass (TEST_DATABASE_URL) runs what the database engine decides: every suite of a core
// service, of the areas' black-box behaviour, concurrency, locks, two processes, the pooler and the catalog.
// It leaves out what would only repeat the embedded pass (docs/decisions.md, "Two database passes"):
const DATABASE_AGNOSTIC = [
  // A surface's wording, rendering, packaging or request handling: the procedures these suites drive run
  // on PostgreSQL in their areas' suites.
  "test/client-package.test.ts",
  "test/survey-page.test.ts",
  "test/account-pages.test.ts",
  "test/cli-terminal.test.ts",
  "test/cli.test.ts",
  "test/errors.test.ts",
  "test/hostile-input.test.ts",
  "test/logging.test.ts",
  "test/mcp-tools.test.ts",
  "test/mcp-wording.test.ts",
  "test/mcp.test.ts",
  "test/openapi-protocol.test.ts",
  "test/openapi-refusals.test.ts",
  "test/request-limits.test.ts",
  "test/surfaces.test.ts",
  "test/trpc.test.ts",
  "packages/cli/test/completion.test.ts",
  "packages/cli/test/compiled.test.ts",
  "packages/cli/test/config.test.ts",
  "packages/cli/test/import.test.ts",
  "packages/cli/test/local.test.ts",
  "packages/mcp/test/catalog.test.ts",
  "packages/rest/test/logged-path.test.ts",
  "packages/rest/test/openapi.test.ts",
  "packages/rest/test/route-table.test.ts",
  // The embedded database itself: the quick start, its data directory and its files.
  "test/quickstart.test.ts",
  "test/data-dir.test.ts",
  "test/security/file-modes.test.ts",
  "test/security/secrets-at-rest.test.ts",
  // Security suites about what a surface prints, sends or refuses by shape, or a clock, not the database.
  "test/security/api-headers.test.ts",
  "test/security/cli-escapes.test.ts",
  "test/security/cli-key-flag.test.ts",
  "test/security/cli-redirect.test.ts",
  "test/security/docs-headers.test.ts",
  "test/security/email-line-forging.test.ts",
  "test/security/email-link-expiry.test.ts",
  "test/security/openapi-host.test.ts",
  "test/security/password-policy.test.ts",
  "test/security/url-schemes.test.ts",
  // Code that opens no database at all: the same run twice.
  "test/doors.test.ts",
  "packages/core/test/auth-cache.test.ts",
  "packages/core/test/config.test.ts",
  "packages/core/test/documents.test.ts",
  "packages/core/test/expiring-map.test.ts",
  "packages/core/test/ids.test.ts",
  "packages/core/test/log.test.ts",
  "packages/core/test/messages.test.ts",
  "packages/core/test/nfce-proof.test.ts",
  "packages/core/test/nfce-qr.test.ts",
  "packages/core/test/problem.test.ts",
  "packages/core/test/refusals.test.ts",
  "packages/core/test/same-person.test.ts",
  "packages/core/test/shape.test.ts",
  "packages/core/test/trpc-spreads.test.ts",
  "packages/db/test/errors.test.ts",
  "packages/db/test/jsonb.test.ts"
]

// The fuzz file runs on its own (`npm run fuzz`, and a bounded phase of .ci/run): on a busy machine it
// ran past 45 minutes beside everything else (docs/decisions.md, "Two database passes").
const FUZZ = process.env["FUZZ"] === "1" || process.env["FUZZ_LONG"] === "1"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env["TEST_DATABASE_URL"] ? DATABASE_AGNOSTIC : []),
      ...(FUZZ ? [] : ["test/fuzz.test.ts"])
    ],
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
