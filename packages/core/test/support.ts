import { testDatabaseConfig } from "@fidelis/db/testing"
import { Effect, Layer, LogLevel } from "effect"
import { configFromEnv } from "../src/config.js"
import { coreLayer } from "../src/runtime.js"

/** Core services on a throwaway database: in-memory PGlite, or a fresh one on TEST_DATABASE_URL's server. */
export const TestCore = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => testDatabaseConfig()),
      (database) => Effect.promise(() => database.drop())
    ),
    (database) =>
      coreLayer({ ...configFromEnv({}), databaseUrl: database.url, dataDir: database.dataDir }, { logLevel: LogLevel.None })
  )
)
