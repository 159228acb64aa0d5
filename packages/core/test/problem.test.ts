import { TRPCError } from "@trpc/server"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Conflict, NotFound, RateLimited, Unavailable, ValidationFailed } from "../src/errors.js"
import type { ProcedureMeta } from "../src/meta.js"
import { MAX_VALIDATION_ITEMS, problemOf, validationIssues } from "../src/problem.js"

const issuesOf = (schema: z.ZodType, input: unknown, meta: ProcedureMeta) => {
  const result = schema.safeParse(input)
  if (result.success) throw new Error("expected a failure")
  return validationIssues(result.error, meta)
}

describe("validationIssues", () => {
  const schema = z.strictObject({
    client_id: z.uuid(),
    points: z.number().int().min(1),
    note: z.string().max(3).optional(),
    kind: z.enum(["a", "b"]).optional()
  })

  it("roots each field where it travelled in the REST call", () => {
    const post: ProcedureMeta = { openapi: { method: "POST", path: "/x/{client_id}" } }
    const issues = issuesOf(schema, { client_id: "nope", points: 0, note: "long", kind: "c", extra: 1 }, post)
    expect(issues).toHaveLength(5)
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          loc: ["body", "extra"],
          msg: "Unknown field; the fields are: client_id, points, note, kind",
          type: "extra_forbidden"
        },
        { loc: ["path", "client_id"], msg: expect.any(String), type: "uuid_parsing" },
        { loc: ["body", "points"], msg: expect.any(String), type: "greater_than_equal" },
        { loc: ["body", "note"], msg: expect.any(String), type: "string_too_long" },
        { loc: ["body", "kind"], msg: expect.any(String), type: "enum" }
      ])
    )
    const get: ProcedureMeta = { openapi: { method: "GET", path: "/x" } }
    expect(issuesOf(schema, { client_id: "4c2b5ab8-3c3d-4d7c-9a53-2f1bce0f8f11" }, get)).toEqual([
      { loc: ["query", "points"], msg: expect.any(String), type: "missing" }
    ])
  })

  it(`lists at most ${MAX_VALIDATION_ITEMS} items, then one saying how many were left out`, () => {
    const post: ProcedureMeta = { openapi: { method: "POST", path: "/x" } }
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra_${i}`, i]))
    const issues = issuesOf(schema, { client_id: "nope", points: 0, ...extra }, post)
    expect(issues).toHaveLength(MAX_VALIDATION_ITEMS + 1)
    expect(issues.slice(0, 2).map((i) => i.type)).toEqual(["uuid_parsing", "greater_than_equal"])
    expect(issues[MAX_VALIDATION_ITEMS]).toEqual({
      loc: ["body"],
      msg: `12 more errors not listed; only the first ${MAX_VALIDATION_ITEMS} are`,
      type: "too_many_errors"
    })
    const items = Array.from({ length: 50 }, () => ({ n: "x" }))
    const list = issuesOf(z.strictObject({ items: z.array(z.strictObject({ n: z.number() })) }), { items }, post)
    expect(list).toHaveLength(MAX_VALIDATION_ITEMS + 1)
    expect(list[MAX_VALIDATION_ITEMS]!.msg).toMatch(/^30 more errors/)
  })
})

const error = (cause: Error, code: TRPCError["code"]) => new TRPCError({ code, message: cause.message, cause })

describe("problemOf", () => {
  it("gives each refusal its status and the design's body, with a machine code and the request id", () => {
    expect(problemOf(error(new NotFound({ resource: "Client", id: "c1" }), "NOT_FOUND"), "r1")).toEqual({
      status: 404,
      body: { detail: "Client c1 not found", code: "NOT_FOUND", request_id: "r1" }
    })
    expect(problemOf(error(new Conflict({ code: "CLIENT_EXISTS", message: "dup" }), "CONFLICT"), "r1")).toEqual({
      status: 409,
      body: { detail: { code: "CLIENT_EXISTS", message: "dup" }, code: "CLIENT_EXISTS", request_id: "r1" }
    })
    const issues = [{ loc: ["body", "x"], msg: "bad", type: "value_error" }]
    expect(problemOf(error(new ValidationFailed({ issues }), "UNPROCESSABLE_CONTENT"), "r1")).toEqual({
      status: 422,
      body: { detail: issues, code: "VALIDATION_FAILED", request_id: "r1" }
    })
    expect(problemOf(error(new RateLimited({ retryAfter: 7 }), "TOO_MANY_REQUESTS"), "r1")).toEqual({
      status: 429,
      body: { detail: "Rate limit exceeded; retry in 7 s", code: "RATE_LIMIT_EXCEEDED", request_id: "r1" },
      headers: { "Retry-After": "7" }
    })
    expect(problemOf(error(new Unavailable({ retryAfter: 5 }), "SERVICE_UNAVAILABLE"), "r1")).toEqual({
      status: 503,
      body: {
        detail: {
          code: "SERVICE_UNAVAILABLE",
          message: "The service is temporarily unavailable; retry in a few seconds"
        },
        code: "SERVICE_UNAVAILABLE",
        request_id: "r1"
      },
      headers: { "Retry-After": "5" }
    })
  })

  it("never lets an internal message out", () => {
    const internal = new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: 'relation "secrets" does not exist' })
    expect(problemOf(internal, "r1")).toEqual({
      status: 500,
      body: { detail: "Internal server error", code: "INTERNAL_ERROR", request_id: "r1" }
    })
  })

  it("words the frameworks' own 415 properly and says to send JSON", () => {
    const framework = new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: 'Unsupported content-type "text/plain' })
    expect(problemOf(framework, "r1").body).toEqual({
      detail:
        'Content-Type "text/plain" is not supported: ' +
        "send the body as JSON, with the header Content-Type: application/json",
      code: "UNSUPPORTED_MEDIA_TYPE",
      request_id: "r1"
    })
  })
})
