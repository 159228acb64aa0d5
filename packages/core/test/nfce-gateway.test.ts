import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { SefazGateway } from "../src/nfce/gateway.js"
import { httpFetcher, type HttpGatewayOptions } from "../src/nfce/http-gateway.js"
import { decodeQr } from "../src/nfce/qr.js"

/** Stand-ins for state hosts: a handler per host name and path, all served by one local server. */
type Handler = (request: IncomingMessage, response: ServerResponse) => void
let handlers: Record<string, Handler> = {}
const hits: Array<string> = []
let server: Server
let port = 0

beforeAll(async () => {
  server = createServer((request, response) => {
    const route = `${request.headers.host?.split(":")[0]}${request.url?.split("?")[0]}`
    hits.push(route)
    const handler = handlers[route]
    if (handler === undefined) response.writeHead(599).end()
    else handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  handlers = {}
  hits.length = 0
})

/** Names resolve to the local server unless a test says otherwise; loopback passes only through the test option. */
const gateway = (options: HttpGatewayOptions = {}) =>
  httpFetcher({
    resolve: async () => ["127.0.0.1"],
    portOverride: port,
    allowLoopback: true,
    readTimeoutMs: 2_000,
    ...options
  })

const invoiceOf = (qr: string) =>
  Either.getOrThrow(decodeQr(qr, { now: new Date("2026-11-15T12:00:00Z"), maxAgeDays: null, sandbox: false }))

const RS = invoiceOf(
  "http://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43230993015006001780651050008765821141276787|2|1|1|" +
    "1BE26B749C734E71F43F4493A87687B02EEC8414"
)
const PE = invoiceOf("http://nfce.sefaz.pe.gov.br/nfce/consulta?p=26260942591651264205650010000777891671062850|3|1")
const MG = invoiceOf(
  "https://portalsped.fazenda.mg.gov.br/portalnfce/sistema/qrcode.xhtml" +
    "?p=31260661585865266267650040002426521200179790|3|1"
)

/** RS's second host pointing inside the network, as a poisoned DNS answer would. */
const svrsIsPrivate = async (name: string) => (name === "dfe-portal.svrs.rs.gov.br" ? ["10.0.0.7"] : ["127.0.0.1"])

const RS_QR = "www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx"
const SVRS = "dfe-portal.svrs.rs.gov.br/Dfe/QrCodeNFce"

const redirect =
  (location: string): Handler =>
  (_request, response) =>
    response.writeHead(302, { location }).end()
const page =
  (body: string, status = 200, type = "text/html; charset=utf-8"): Handler =>
  (_request, response) =>
    response.writeHead(status, { "content-type": type }).end(body)

/** The national DANFE layout as RS, PR, SP and BA render it (trimmed). */
const DANFE = `<html><body>
  <div class="txtTopo">SUPERMERCADO EXEMPLO LTDA</div>
  <table id="tabResult"><tr><td><span class="txtTit">ARROZ 5KG</span></td></tr></table>
  <div id="totalNota">
    <div id="linhaTotal"><label>Qtd. total de itens:</label><span class="totalNumb">3</span></div>
    <div id="linhaTotal"><label>Valor total R$:</label><span class="totalNumb">1.250,00</span></div>
    <div id="linhaTotal"><label>Descontos R$:</label><span class="totalNumb">15,44</span></div>
    <div id="linhaTotal" class="linhaShade"><label>Valor a pagar R$:</label>
      <span class="totalNumb txtMax">1.234,56</span></div>
  </div>
  <ul><li><strong>Número: </strong>876582<strong> Série: </strong>105
  <strong> Emissão: </strong>09/09/2023 18:41:07-03:00
  - Via Consumidor 2</li></ul>
</body></html>`

/** PE's answer, shaped like economizaai's fixtures/sefaz/pe XML: vNF 24.13 paid, vNFTot 24.25 with IBS/CBS. */
const PE_XML = `<?xml version="1.0" encoding="UTF-8"?>
<nfeProc versao="4.00" xmlns="http://www.portalfiscal.inf.br/nfe"><NFe><infNFe>
  <ide><mod>65</mod><dhEmi>2026-09-12T10:31:05-03:00</dhEmi></ide>
  <det nItem="1"><prod><xProd>PAO FRANCES</xProd></prod></det>
  <det nItem="2"><prod><xProd>CAFE 250G</xProd></prod></det>
  <total><ICMSTot><vProd>24.13</vProd><vNF>24.13</vNF></ICMSTot><IBSCBSTot><vIBS>0.12</vIBS></IBSCBSTot>
  <vNFTot>24.25</vNFTot></total>
</infNFe></NFe></nfeProc>`

describe("SefazGateway over HTTP", () => {
  it("follows RS's redirect to its other official host and reads the national layout", async () => {
    handlers[RS_QR] = redirect(`http://${SVRS}?p=x`)
    handlers[SVRS] = page(DANFE)
    expect(await Effect.runPromise(gateway()(RS))).toEqual({
      status: "ok",
      total_cents: 123456,
      items_count: 3,
      issued_at: "2023-09-09T18:41:07-03:00"
    })
    expect(hits).toEqual([RS_QR, SVRS])
  })

  it("follows PE's redirect to port 444 and credits on vNF, not vNFTot", async () => {
    const seen: Array<string> = []
    handlers["nfce.sefaz.pe.gov.br/nfce/consulta"] = (request, response) => {
      seen.push(request.headers.host ?? "")
      if (seen.length === 1) redirect("http://nfce.sefaz.pe.gov.br:444/nfce/consulta?p=x")(request, response)
      else page(PE_XML, 200, "application/xml")(request, response)
    }
    expect(await Effect.runPromise(gateway()(PE))).toEqual({
      status: "ok",
      total_cents: 2413,
      items_count: 2,
      issued_at: "2026-09-12T10:31:05-03:00"
    })
    expect(seen).toHaveLength(2)
  })

  it("refuses a redirect to a host off the state's list, without fetching it", async () => {
    handlers[RS_QR] = redirect("http://collector.example.com/steal")
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({
      status: "blocked",
      detail: expect.stringMatching(/collector\.example\.com, which is not an official host of RS/)
    })
    // Another state's official host is still off RS's list, and so is the metadata address.
    handlers[RS_QR] = redirect("http://www.fazenda.pr.gov.br/nfce/qrcode")
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "blocked" })
    handlers[RS_QR] = redirect("http://169.254.169.254/latest/meta-data/")
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "blocked" })
    expect(hits).toEqual([RS_QR, RS_QR, RS_QR])
  })

  it("refuses an official name that resolves to a private address, whichever hop it is on", async () => {
    handlers[RS_QR] = redirect(`http://${SVRS}`)
    expect(await Effect.runPromise(gateway({ resolve: svrsIsPrivate })(RS))).toMatchObject({
      status: "blocked",
      detail: "dfe-portal.svrs.rs.gov.br resolves to 10.0.0.7, which is not a public address"
    })
    expect(hits).toEqual([RS_QR])
    for (const address of [
      "192.168.1.1",
      "100.64.0.1",
      "::ffff:10.0.0.1",
      "fe80::1",
      "fd00::1",
      "0.0.0.0",
      "224.0.0.1"
    ]) {
      const outcome = await Effect.runPromise(gateway({ resolve: async () => ["200.198.1.1", address] })(RS))
      expect(outcome, address).toMatchObject({ status: "blocked", detail: expect.stringContaining(address) })
    }
    expect(hits).toEqual([RS_QR])
  })

  it("refuses loopback unless the test option allows it", async () => {
    handlers[RS_QR] = page(DANFE)
    expect(await Effect.runPromise(gateway({ allowLoopback: false })(RS))).toMatchObject({ status: "blocked" })
    expect(
      await Effect.runPromise(gateway({ resolve: async () => ["::ffff:127.0.0.1"], allowLoopback: false })(RS))
    ).toMatchObject({ status: "blocked" })
    expect(hits).toEqual([])
  })

  it("stops after 4 redirects", async () => {
    handlers[RS_QR] = redirect(`http://${SVRS}`)
    handlers[SVRS] = redirect(`http://${RS_QR}`)
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "blocked", detail: "More than 4 redirects" })
    expect(hits).toHaveLength(5)
  })

  it("aborts an oversized body", async () => {
    handlers[RS_QR] = (_request, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      const chunk = "x".repeat(64 * 1024)
      const write = () => {
        while (response.write(chunk)) if (response.writableLength > 8 * 1024 * 1024) break
      }
      write()
      response.on("drain", write)
      response.on("close", () => response.removeAllListeners("drain"))
    }
    expect(await Effect.runPromise(gateway({ maxBodyBytes: 256 * 1024 })(RS))).toMatchObject({
      status: "blocked",
      detail: expect.stringMatching(/more than 262144 bytes/)
    })
  })

  it("gives up on a body that trickles in past the read time", async () => {
    handlers[RS_QR] = (_request, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      const timer = setInterval(() => response.write("<p>"), 50)
      response.on("close", () => clearInterval(timer))
    }
    expect(await Effect.runPromise(gateway({ readTimeoutMs: 400 })(RS))).toMatchObject({
      status: "unavailable",
      detail: expect.stringMatching(/too slowly/)
    })
  })

  it("reports a captcha page, a 404, a 403 and a 5xx honestly", async () => {
    handlers[RS_QR] = page(`<html><div class="cf-turnstile" data-sitekey="x"></div></html>`)
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "captcha_required" })
    handlers[RS_QR] = page("<html>Not Found</html>", 404)
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "not_found" })
    handlers[RS_QR] = page("<html><p>NF-e inexistente na base de dados</p></html>")
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "not_found" })
    handlers[RS_QR] = page("Forbidden", 403)
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "blocked" })
    handlers[RS_QR] = page("oops", 503)
    expect(await Effect.runPromise(gateway()(RS))).toMatchObject({ status: "unavailable" })
  })

  it("reports a captcha state without fetching", async () => {
    expect(await Effect.runPromise(gateway()(MG))).toMatchObject({ status: "captcha_required" })
    expect(hits).toEqual([])
  })
})

const fetchWith = (layer: ReturnType<typeof SefazGateway.layer>, invoice: typeof RS) =>
  Effect.runPromise(Effect.flatMap(SefazGateway, (sefaz) => sefaz.fetchInvoice(invoice)).pipe(Effect.provide(layer)))

describe("SefazGateway layers", () => {
  const offline = invoiceOf(
    "http://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43181012384687000438651020003078229003078222|2|1|20|179.63|" +
      "446342616D41346459566D56364653522B5A47672B35334F376E343D|4|7521734A467A8901756BCD80BB3A4BF8AAFD56E5"
  )

  it("asks the state's page for an offline QR too: the total it carries is only the store's word", async () => {
    const outcome = await fetchWith(SefazGateway.layer(gateway()), offline)
    expect(hits).toEqual([RS_QR])
    // No handler stands for the page here (599): not the QR's own total.
    expect(outcome).toMatchObject({ status: "unavailable" })
  })

  it("serves fixture invoices by access key", async () => {
    const layer = SefazGateway.fixture({
      [RS.access_key]: { status: "ok", total_cents: 5000, items_count: 4, issued_at: "2023-09-09T18:41:07-03:00" }
    })
    expect(await fetchWith(layer, RS)).toMatchObject({ status: "ok", total_cents: 5000 })
    expect(await fetchWith(layer, PE)).toMatchObject({ status: "not_found" })
  })
})
