import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { layer } from "../src/client.js"
import { jsonb } from "../src/jsonb.js"

describe("jsonb parameters", () => {
  it.live(
    "store text with lone surrogates (as U+FFFD) and keep paired ones",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const value = { label: "a\uD800b", tail: "c\uDFFF", emoji: "😀", list: ["\uDBFF"] }
        const [row] = yield* sql<{ value: unknown }>`SELECT ${jsonb(value)}::jsonb AS value`
        expect(row?.value).toEqual({ label: "a\uFFFDb", tail: "c\uFFFD", emoji: "😀", list: ["\uFFFD"] })
      }).pipe(Effect.provide(layer({ url: undefined, dataDir: "memory://" }))),
    30_000
  )
})
