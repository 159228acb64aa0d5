import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { isUnavailable } from "../src/errors.js"

const sqlError = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code })

describe("isUnavailable", () => {
  it("tells an unreachable database from a statement that failed", () => {
    const unreachable = [
      withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      Object.assign(new AggregateError([], ""), { code: "ECONNREFUSED" }),
      withCode("terminating connection due to administrator command", "57P01"),
      withCode("the database system is starting up", "57P03"),
      withCode("connection failure", "08006"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      new Error("Connection terminated due to connection timeout", { cause: new Error("timeout expired") })
    ]
    for (const cause of unreachable) expect(isUnavailable(sqlError(cause)), String(cause)).toBe(true)

    const statementFailures = [
      withCode("duplicate key value violates unique constraint", "23505"),
      withCode('relation "x" does not exist', "42P01"),
      withCode("canceling statement due to user request", "57014"),
      new Error("Received unexpected dataRow message from backend.")
    ]
    for (const cause of statementFailures) expect(isUnavailable(sqlError(cause)), String(cause)).toBe(false)
    expect(isUnavailable(withCode("connect ECONNREFUSED", "ECONNREFUSED"))).toBe(false)
  })
})
