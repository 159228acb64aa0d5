import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { join } from "node:path"
import { Layer } from "effect"
import { describe, expect, it } from "vitest"

/** Every folder of core's source is a domain area (docs/decisions.md, "Area shape"). */
const src = fileURLToPath(new URL("../src/", import.meta.url))
const areas = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

/** Areas no procedure exposes: other areas' writes use them. */
const WITHOUT_ROUTER = new Set(["idempotency", "jobs"])

describe("area shape", () => {
  it("finds the areas", () => {
    expect(areas).toEqual(expect.arrayContaining(["coupons", "loyalty", "metrics"]))
  })

  it.each(areas)("%s has its contracts, service, router and index side by side", (area) => {
    const expected = ["contracts.ts", "service.ts", ...(WITHOUT_ROUTER.has(area) ? [] : ["router.ts"]), "index.ts"]
    expect(expected.filter((file) => !existsSync(join(src, area, file)))).toEqual([])
  })

  it.each(areas)("%s's index exports the layer the runtime merges", async (area) => {
    const index = (await import(join(src, area, "index.ts"))) as { layer?: unknown }
    expect(Layer.isLayer(index.layer)).toBe(true)
    expect(readFileSync(join(src, "runtime.ts"), "utf8")).toContain(`import * as ${area} from "./${area}/index.js"`)
  })
})
