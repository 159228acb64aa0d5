import { createAppCaller, createRequestContext, isDomainError, problemOf, type CoreRuntime } from "@fidelis/core"
import { TRPCError } from "@trpc/server"
import type { H3Event } from "h3"
import { messageHtml, pageNonce, pageResponse } from "../pages/shell.js"
import { surveyHtml } from "./render.js"

/** The refusal a respondent sees, in their words; the status stays the API's. */
const refusalPage = ({ cause }: TRPCError, status: number) => {
  if (status === 404 || status === 422) {
    // 422: a ref longer than any slug, so no store has it.
    return isDomainError(cause) && cause._tag === "NotFound" && cause.resource !== "Establishment"
      ? ["Nenhuma pesquisa no momento", "Esta loja não tem uma pesquisa aberta agora. Obrigado pelo interesse!"]
      : ["Loja não encontrada", "Não encontramos esta loja. Confira o endereço ou o QR code e tente de novo."]
  }
  if (status === 429) return ["Muitas tentativas", "Muitos acessos seguidos. Aguarde um minuto e tente de novo."]
  return ["Pesquisa indisponível", "Não conseguimos abrir a pesquisa agora. Tente de novo em alguns minutos."]
}

/**
 * `GET /s/{estabelecimento_ref}`: the hosted survey page, a view over `surveys.active` called in
 * process with the respondent's address, so the public routes' per-address budget counts it too.
 */
export const surveyPage =
  (runtime: CoreRuntime) =>
  async (event: H3Event): Promise<Response> => {
    const nonce = pageNonce()
    const resHeaders = new Headers()
    const ctx = createRequestContext({
      runtime,
      requestId: event.context.requestId,
      resHeaders,
      signal: event.req.signal,
      peerAddress: event.req.ip,
      forwardedFor: event.req.headers.get("x-forwarded-for")
    })
    let status = 200
    let html: string
    try {
      // Left encoded: slugs and UUIDs have nothing to decode, so an encoded ref names no store either way.
      const survey = await createAppCaller(ctx).surveys.active({
        estabelecimento_ref: event.context.params?.["ref"] ?? ""
      })
      html = surveyHtml(survey, nonce)
    } catch (error) {
      // Anything else is a bug: the app's handler turns it into the logged 500.
      if (!(error instanceof TRPCError)) throw error
      const problem = problemOf(error, event.context.requestId)
      if (problem.status >= 500) event.context.report(error)
      for (const [name, value] of Object.entries(problem.headers ?? {})) resHeaders.set(name, value)
      status = problem.status
      const [title, text] = refusalPage(error, status)
      html = messageHtml(title!, text!, nonce)
    }
    return pageResponse(html, nonce, status, resHeaders)
  }
