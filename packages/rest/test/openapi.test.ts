import { IDEMPOTENCY_KEY, publicApiRouter } from "@fidelis/core"
import { describe, expect, it } from "vitest"
import { openApiDocument } from "../src/openapi.js"

describe("OpenAPI document", () => {
  it("documents X-Idempotency-Key with the server's configured lifetime and core's bounds", () => {
    const doc = openApiDocument({
      router: publicApiRouter,
      title: "t",
      description: "d",
      baseUrl: "/",
      idempotencyTtlSeconds: 7200
    })
    const parameters = doc.paths["/points/credit"]?.["post"]?.["parameters"] as ReadonlyArray<Record<string, unknown>>
    expect(parameters.find((parameter) => parameter["name"] === IDEMPOTENCY_KEY.header)).toMatchObject({
      in: "header",
      description: expect.stringMatching(/^Makes retries safe for 2 h: /),
      schema: { type: "string", minLength: IDEMPOTENCY_KEY.minLength, maxLength: IDEMPOTENCY_KEY.maxLength }
    })
  })
})
