import { TRPCError } from "@trpc/server"
import { getHTTPStatusCodeFromError } from "@trpc/server/http"
import { Effect, Logger, LogLevel, ManagedRuntime } from "effect"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { LOCAL_ADMIN } from "../src/principal.js"
import { createRequestContext } from "../src/context.js"
import { Conflict, ERROR_KINDS } from "../src/errors.js"
import type { CoreRuntime } from "../src/services.js"
import { createCallerFactory, publicProcedure, refuses, router, runEffect } from "../src/trpc.js"

// These procedures use no service, so a runtime without any (and silent) is enough.
const runtime = ManagedRuntime.make(Logger.minimumLogLevel(LogLevel.None)) as unknown as CoreRuntime
afterAll(() => runtime.dispose())
afterEach(() => vi.unstubAllEnvs())

const used = Effect.fail(new Conflict({ code: "COUPON_USED", message: "Coupon ABC was already used" }))

const tiny = router({
  declared: publicProcedure.concat(refuses("NOT_FOUND", "COUPON_USED")).query(({ ctx }) => runEffect(ctx, used)),
  undeclared: publicProcedure
    .concat(refuses("NOT_FOUND"))
    // @ts-expect-error COUPON_USED is not declared: the program does not compile
    .query(({ ctx }) => runEffect(ctx, used)),
  // A cast hides the refusal from the types; the run-time check still catches it.
  hidden: publicProcedure.concat(refuses("NOT_FOUND")).query(({ ctx }) => runEffect(ctx, used as Effect.Effect<never>))
})

// A trusted in-process caller: public procedures then count no address budget, which needs services.
const caller = () => createCallerFactory(tiny)(createRequestContext({ runtime, trustedPrincipal: LOCAL_ADMIN }))

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable("the call should fail"),
    (error: unknown) => error as TRPCError
  )

describe("declared refusals", () => {
  it("a declared refusal is answered as its kind", async () => {
    const error = await failureOf(caller().declared())
    expect(error.code).toBe("CONFLICT")
    expect(error.cause).toMatchObject({ _tag: "Conflict", code: "COUPON_USED" })
  })

  it("an undeclared refusal fails as a defect outside production", async () => {
    for (const call of [caller().undeclared(), caller().hidden()]) {
      const error = await failureOf(call)
      expect(error.code).toBe("INTERNAL_SERVER_ERROR")
      expect(error.cause).not.toBeInstanceOf(Conflict)
    }
  })

  it("production still answers an undeclared refusal as its kind", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const error = await failureOf(caller().hidden())
    expect(error.code).toBe("CONFLICT")
  })

  it("a code outside the catalogue does not compile", () => {
    // @ts-expect-error COUPON_LOST is not in REFUSALS
    expect(new Conflict({ code: "COUPON_LOST", message: "" }).code).toBe("COUPON_LOST")
  })
})

describe("the error table", () => {
  it("gives each kind the HTTP status tRPC answers for its code, and no two kinds one status", () => {
    for (const [tag, kind] of Object.entries(ERROR_KINDS)) {
      expect(getHTTPStatusCodeFromError(new TRPCError({ code: kind.trpc })), tag).toBe(kind.status)
    }
    // MCP and the CLI find a failure's kind by its status.
    expect(new Set(Object.values(ERROR_KINDS).map((kind) => kind.status)).size).toBe(Object.keys(ERROR_KINDS).length)
  })
})
