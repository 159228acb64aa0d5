import type { ProcedureMeta } from "@fidelis/core"
import { initTRPC } from "@trpc/server"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRouteIndex } from "../src/routes.js"

const t = initTRPC.meta<ProcedureMeta>().create()
const Token = z.object({ token: z.string() })

const router = t.router({
  open: t.procedure
    .meta({ secretParams: ["token"], openapi: { method: "GET", path: "/email/open/{token}.gif" } })
    .input(Token)
    .query(() => ""),
  unsubscribe: t.procedure
    .meta({ secretParams: ["token"], openapi: { method: "POST", path: "/email/unsubscribe/{token}" } })
    .input(Token)
    .mutation(() => ""),
  qr: t.procedure
    .meta({ secretParams: ["code"], openapi: { method: "GET", path: "/qr/{code}.svg" } })
    .input(z.object({ code: z.string() }))
    .query(() => ""),
  referralQr: t.procedure
    .meta({ openapi: { method: "GET", path: "/qr/referrals/{code}.svg" } })
    .input(z.object({ code: z.string() }))
    .query(() => ""),
  client: t.procedure
    .meta({ openapi: { method: "GET", path: "/clients/{client_id}" } })
    .input(z.object({ client_id: z.string() }))
    .query(() => "")
})

const { loggedPath } = createRouteIndex([{ base: "/api/v1/public", router }])

describe("the access log's path", () => {
  it("writes a secret path parameter by its name, whatever the method or the case", () => {
    expect(loggedPath("/api/v1/public/email/open/abc.def.ghi.gif")).toBe("/api/v1/public/email/open/:token.gif")
    expect(loggedPath("/api/v1/public/email/unsubscribe/abc.def.ghi")).toBe("/api/v1/public/email/unsubscribe/:token")
    expect(loggedPath("/api/v1/public/Email/Open/abc.gif")).toBe("/api/v1/public/Email/Open/:token.gif")
    expect(loggedPath("/api/v1/public/qr/K7M2Q9XH.svg")).toBe("/api/v1/public/qr/:code.svg")
  })

  it("hides the secret of a link cut or extended in transit, which no route takes", () => {
    expect(loggedPath("/api/v1/public/email/open/abc.def")).toBe("/api/v1/public/email/open/:token.gif")
    expect(loggedPath("/api/v1/public/email/unsubscribe/abc.def/confirm")).toBe(
      "/api/v1/public/email/unsubscribe/:token/confirm"
    )
  })

  it("leaves every other path as it came, a public code and an id included", () => {
    for (const path of [
      "/api/v1/public/qr/referrals/K7M2Q9XHRT.svg",
      "/api/v1/public/clients/5f0c2a71",
      "/api/v1/public/email/open",
      "/api/v1/other/email/open/abc.gif",
      "/healthz"
    ])
      expect(loggedPath(path)).toBe(path)
  })
})
