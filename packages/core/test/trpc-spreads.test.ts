import { readFileSync, readdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { initTRPC } from "@trpc/server"
import { describe, expect, it } from "vitest"

// tRPC's compiled object spread is patched to the engine's Object.assign (patches/, docs/decisions.md
// "tRPC's object spreads"); these are the spreads of a call's chain that the patch must keep exact.
const t = initTRPC.context<{ readonly tenant: string }>().create()

const router = t.router({
  merged: t.procedure
    // Parsers that pass the object through as parsed, own `__proto__` key included (zod drops it).
    .input((raw: unknown) => raw as { a: string })
    .use(({ next }) => next({ ctx: { step: "first" } }))
    .input((raw: unknown) => raw as { b: string })
    .use(({ ctx, next }) => next({ ctx: { step: `${ctx.step}, then second` } }))
    .query(({ ctx, input }) => ({ ctx, input }))
})

const call = (input: unknown) => router.createCaller({ tenant: "t1" }).merged(input as never)

describe("tRPC's object spreads, as patched", () => {
  it("merges each middleware's context and each parser's input as a spread would", async () => {
    const { ctx, input } = await call({ a: "1", b: "2" })
    expect(ctx).toEqual({ tenant: "t1", step: "first, then second" })
    expect(input).toEqual({ a: "1", b: "2" })
  })

  it("keeps a parsed `__proto__` key an own property, never the merged input's prototype", async () => {
    const { input } = await call(JSON.parse('{"a": "1", "b": "2", "__proto__": {"admin": true}}'))
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype)
    expect((input as { admin?: boolean }).admin).toBeUndefined()
    expect(Object.hasOwn(input, "__proto__")).toBe(true)
  })

  it("is applied to the installed tRPC (npm install runs patch-package)", () => {
    const dist = dirname(createRequire(import.meta.url).resolve("@trpc/server"))
    const helpers = readdirSync(dist).filter((name) => /^getErrorShape-.*\.(mjs|cjs)$/.test(name))
    expect(helpers.length).toBeGreaterThan(0)
    for (const name of helpers)
      expect(readFileSync(join(dist, name), "utf8")).toContain('if (!Object.hasOwn(t, "__proto__")) {')
  })
})
