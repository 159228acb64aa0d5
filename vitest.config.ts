import { configDefaults, defineConfig } from "vitest/config"

// What tests the package, not the database, runs once: on the embedded run, not again on PostgreSQL.
const DATABASE_AGNOSTIC = ["test/client-package.test.ts"]

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env["TEST_DATABASE_URL"] ? DATABASE_AGNOSTIC : [])],
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
