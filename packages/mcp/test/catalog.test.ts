import { IDEMPOTENCY_KEY, LOCAL_ADMIN } from "@fidelis/core"
import { describe, expect, it } from "vitest"
import { catalogFor, IDEMPOTENCY_ARGUMENT } from "../src/catalog.js"

describe("MCP catalog", () => {
  it("describes idempotency_key with the server's configured lifetime and core's bounds", () => {
    const credit = catalogFor(LOCAL_ADMIN, 3600).find((entry) => entry.tool.name === "credit_points")
    expect(credit?.tool.inputSchema.properties?.[IDEMPOTENCY_ARGUMENT]).toEqual({
      type: "string",
      minLength: IDEMPOTENCY_KEY.minLength,
      maxLength: IDEMPOTENCY_KEY.maxLength,
      description: expect.stringMatching(/^Makes retries safe for 1 h: /)
    })
  })
})
