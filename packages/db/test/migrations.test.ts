import { readdirSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { MIGRATIONS } from "../src/migrations/index.js"

describe("migrations/index.ts", () => {
  it("lists every migration file of the folder, and nothing else", () => {
    const files = readdirSync(new URL("../src/migrations/", import.meta.url))
      .filter((file) => file !== "index.ts")
      .map((file) => file.replace(/\.ts$/, ""))
    expect(Object.keys(MIGRATIONS).toSorted()).toEqual(files.toSorted())
    for (const name of files) expect(name).toMatch(/^\d{4}_[a-z0-9_]+$/)
  })
})
