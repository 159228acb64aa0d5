import { IDEMPOTENCY_KEY, LOCAL_ADMIN, type Principal } from "@fidelis/core"
import { describe, expect, it } from "vitest"
import { catalogFor, IDEMPOTENCY_ARGUMENT } from "../src/catalog.js"

const company = (keyId: string) => ({ kind: "company", keyId, empresaId: keyId }) as unknown as Principal

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

  it("is built once per catalogue: every key of a kind gets the same tools, not a copy", () => {
    expect(catalogFor(company("a"), 3600)).toBe(catalogFor(company("b"), 3600))
    expect(catalogFor(LOCAL_ADMIN, 3600)).toBe(catalogFor(LOCAL_ADMIN, 3600))
    expect(catalogFor(company("a"), 3600)).not.toBe(catalogFor(company("a"), 60))
    expect(catalogFor(company("a"), 3600)).toHaveLength(25)
  })
})
