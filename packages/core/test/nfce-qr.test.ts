import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { checkDigit, parseAccessKey } from "../src/nfce/access-key.js"
import type { QrRefusalReason } from "../src/nfce/contracts.js"
import { decodeQr, type DecodeOptions } from "../src/nfce/qr.js"

const NOW = new Date("2026-11-15T12:00:00Z")
/** Real receipts span 2018-2026, so their own cases take no age limit; the age rule has cases of its own. */
const ANY_AGE: DecodeOptions = { now: NOW, maxAgeDays: null, sandbox: false }

const decoded = (qr: string, options: DecodeOptions = ANY_AGE) => {
  const result = decodeQr(qr, options)
  if (Either.isLeft(result)) throw new Error(`refused ${qr}: ${result.left.message}`)
  return result.right
}
const refusal = (qr: string, options: DecodeOptions = ANY_AGE) => {
  const result = decodeQr(qr, options)
  if (Either.isRight(result)) throw new Error(`accepted ${qr}`)
  return result.left
}

const sp = (payload: string) => `https://www.nfce.fazenda.sp.gov.br/qrcode?p=${payload}`
/** An SP v3 online QR of a key issued in `aamm`. */
const issuedIn = (aamm: string) => sp(`${withDigit(`35${aamm}2082696900012365001000002665174541495`)}|3|1`)

/** A key with its check digit recomputed, for derived cases. */
const withDigit = (first43: string) => `${first43}${checkDigit(first43)}`

describe("access key check digit", () => {
  it("gives nfce.md's worked examples", () => {
    // The real PE receipt of nfce.md section 2: sum 903, r 1, cDV 0.
    expect(checkDigit("2626094259165126420565001000077789167106285")).toBe(0)
    // The MOC's own example (an old NF-e key): sum 644, r 6, cDV 5.
    expect(checkDigit("5206043300991100250655012000000780026730161")).toBe(5)
    // Alphanumeric CNPJ (a CT-e key from wmixvideo/nfe#1164), letters worth ASCII - 48: sum 1374, r 10, cDV 1.
    expect(checkDigit("3526050X0J92JY00019657001000000604144867901")).toBe(1)
  })

  it("parses the fields of a key", () => {
    expect(Either.getOrThrow(parseAccessKey("26260942591651264205650010000777891671062850"))).toEqual({
      cuf: "26",
      aamm: "2609",
      issuer: "42591651264205",
      mod: "65",
      serie: "001",
      nnf: "000077789",
      tp_emis: "1",
      cnf: "67106285",
      cdv: "0"
    })
  })
})

describe("real receipt QR codes", () => {
  it.each([
    // Test of Tianoklein/nota_fiscal_eletronica_scrap README.md: RS, v2 online, `|` as %7C.
    [
      "https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43210193015006003996651230003165881244534711%7C2%7C1%7C1%7C" +
        "816163C18D6D59DB901C3CAC9DE3D4776283E09B",
      "RS",
      "v2_online"
    ],
    // A scraper's example URL found by code search (public repository): RS, v2 online, raw `|`.
    [
      "https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43230993015006001780651050008765821141276787|2|1|1|" +
        "1BE26B749C734E71F43F4493A87687B02EEC8414",
      "RS",
      "v2_online"
    ],
    // A scraper's test list found by code search: SP, v3 online, %7C.
    [
      "https://www.nfce.fazenda.sp.gov.br/qrcode?p=35260420826969000123650010000026651745414959%7C3%7C1",
      "SP",
      "v3_online"
    ],
    // Code search, a React Native app's sample: SP, v2 online.
    [
      "https://www.nfce.fazenda.sp.gov.br/qrcode?p=35210560479680001090651050001600861259534072|2|1|1|" +
        "643A34EFA0FBBF88AC6EFBB323D294586190ACAF",
      "SP",
      "v2_online"
    ],
    // FredyyLima/chatbot-python app/services/teste_scrapper.py: PR, v2 online, %7C.
    [
      "https://www.fazenda.pr.gov.br/nfce/qrcode?p=41250436340041000174650050000157521035263724%7C2%7C1%7C1%7C" +
        "AF08CA85D32950FA633E42C2E1D5DDC542A05DAD",
      "PR",
      "v2_online"
    ],
    // Code search, a Cypress journey test: PR, v2 online.
    [
      "https://www.fazenda.pr.gov.br/nfce/qrcode?p=41260376189406004628651260003094931004085409|2|1|1|" +
        "32D7052D8E169C149194A35193D5187134762527",
      "PR",
      "v2_online"
    ],
    // Code search, a BeautifulSoup scraper: MG, v2 online, %7C.
    [
      "https://portalsped.fazenda.mg.gov.br/portalnfce/sistema/qrcode.xhtml?p=" +
        "31251004641376005952650690003823761844896598%7C2%7C1%7C1%7CCD52B364F220486109328BAA47A98AB41ACB1506",
      "MG",
      "v2_online"
    ],
    // Code search, a Python test's VALID_URL: MG, v3 online.
    [
      "https://portalsped.fazenda.mg.gov.br/portalnfce/sistema/qrcode.xhtml?p=" +
        "31260661585865266267650040002426521200179790|3|1",
      "MG",
      "v3_online"
    ],
    // wendelpaco/nfce-scraper-service src/exemplo.txt (2,003 real scans): PI on webas, v2 online.
    [
      "http://webas.sefaz.pi.gov.br/nfceweb/consultarNFCe.jsf?p=22241210237343000128650060000437141420237726|2|1|1|" +
        "2c5bf17c9878dc0972608b0b02182b83559b246c",
      "PI",
      "v2_online"
    ],
    // Code search, a pytest of PI's "join all digits" bug: PI, v3 online.
    [
      "http://webas.sefaz.pi.gov.br/nfceweb/consultarNFCe.jsf?p=22260642591651159258650740004434901193066567|3|1",
      "PI",
      "v3_online"
    ]
  ])("accepts %s", (qr, uf, layout) => {
    const invoice = decoded(qr)
    expect(invoice).toMatchObject({ uf, layout, tp_amb: 1, offline: null })
    expect(invoice.url).not.toContain("|")
  })

  it("reads the total and the day of offline receipts", () => {
    // consultaNFE (ymoreiratiti) test/index.test.js: RS offline; its page says 179.63 too (nfce.md section 4).
    const rs = decoded(
      "https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43181012384687000438651020003078229003078222|2|1|20|179.63|" +
        "446342616D41346459566D56364653522B5A47672B35334F376E343D|4|7521734A467A8901756BCD80BB3A4BF8AAFD56E5"
    )
    expect(rs).toMatchObject({
      uf: "RS",
      layout: "v2_offline",
      offline: { total_cents: 17963, issue_date: "2018-10-20" }
    })
    // Code search, a React Native app's list of coupons: BA offline.
    const ba = decoded(
      "http://nfe.sefaz.ba.gov.br/servicos/nfce/qrcode.aspx?p=29230397422620007325650050004466139244013347|2|1|25|" +
        "31.90|4958436e4d415856376477714b44664f4b317166505471696241513d|1|2315e8ab5b274acc6eafe48d5c84fbdab709cf7f"
    )
    expect(ba.offline).toMatchObject({ total_cents: 3190, issue_date: "2023-03-25" })
    // wendelpaco/nfce-scraper-service src/exemplo.txt: a real BA offline receipt whose total has a decimal comma.
    const comma = decoded(
      "http://nfe.sefaz.ba.gov.br/servicos/nfce/qrcode.aspx?p=29241215422658000169650050001015459735617190|2|1|22|" +
        "94,90|39556A464A514D4D395752535A55353341724679386956614F48733D|1|aa0ccb42a29374d8e19a883bb93d2bcb6c6f8fd7"
    )
    expect(comma.offline).toMatchObject({ total_cents: 9490, issue_date: "2024-12-22" })
    // The payload is kept as printed: the v2 hash was made over it, comma included.
    expect(comma.offline?.payload).toMatch(/\|94,90\|/)
  })

  it("accepts a v3 offline QR whose base64 signature holds + and /, raw in the query", () => {
    const key = withDigit(`35261112345678000190650010000001239${"1234567".padStart(8, "0")}`)
    const invoice = decoded(
      `https://www.nfce.fazenda.sp.gov.br/qrcode?p=${key}|3|1|05|12.50|2|12345678901|ab+cd/EF12==`
    )
    expect(invoice).toMatchObject({ layout: "v3_offline", offline: { total_cents: 1250, issue_date: "2026-11-05" } })
    expect(invoice.url).toContain("ab+cd/EF12==")
  })

  it("accepts nfce.md's PE key on PE's host, on port 444 too", () => {
    const key = "26260942591651264205650010000777891671062850"
    expect(decoded(`http://nfce.sefaz.pe.gov.br/nfce/consulta?p=${key}|3|1`).uf).toBe("PE")
    expect(decoded(`https://nfce.sefaz.pe.gov.br:444/nfce/consulta?p=${key}|3|1`).uf).toBe("PE")
    expect(refusal(`https://nfce.sefaz.pe.gov.br:8443/nfce/consulta?p=${key}|3|1`).reason).toBe("HOST_NOT_OFFICIAL")
  })

  it("accepts an alphanumeric CNPJ key (July 2026) with its ASCII-48 check digit", () => {
    const key = withDigit("3526110X0J92JY00019665001000000604144867901".slice(0, 43))
    expect(decoded(`https://www.nfce.fazenda.sp.gov.br/qrcode?p=${key}|3|1`).fields.issuer).toBe("0X0J92JY000196")
  })

  it("takes a trailing slash in the path and a receipt URL nested in a proxy's query", () => {
    const key = withDigit("5026111234567800019065001000000123112345678")
    expect(decoded(`https://www.dfe.ms.gov.br/nfce/qrcode/?p=${key}|3|1`).uf).toBe("MS")
    const inner =
      "https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=43230993015006001780651050008765821141276787|2|1|1|" +
      "1BE26B749C734E71F43F4493A87687B02EEC8414"
    expect(decoded(`https://proxy.example.com/fetch?url=${inner}`).uf).toBe("RS")
    expect(decoded(`https://proxy.example.com/fetch?url=${encodeURIComponent(inner)}&x=1`).uf).toBe("RS")
  })
})

describe("refusals", () => {
  const spKey = "35260420826969000123650010000026651745414959"

  it.each<[string, string, QrRefusalReason, RegExp]>([
    // wendelpaco/nfce-scraper-service src/exemplo.txt: 11 of the real scans are this marketing short link.
    ["a marketing link", "http://e-qr.codes/c5e19ce179", "NOT_NFCE", /not an NFC-e receipt.*e-qr\.codes/],
    ["plain text", "hello", "NOT_NFCE", /not an NFC-e receipt/],
    // wendelpaco's exemplo.txt: a real BA receipt on the homologation host with no `p=`.
    [
      "an official link without p",
      "http://hnfe.sefaz.ba.gov.br/servicos/nfce/modulos/geral/NFCEC_consulta_chave_acesso.aspx?" +
        "29241205346644002799651030002192099176415062|2|1|15|136.42|164597C7C424C69D74ABC735D4371662262C5316",
      "NOT_NFCE",
      /no invoice data/
    ],
    [
      "a version 1 QR",
      "http://www.dfeportal.fazenda.pr.gov.br/dfe-portal/rest/servico/consultaNFCe?chNFe=" +
        "41170410422724000187650010000005101000010235&nVersao=100&tpAmb=2",
      "LEGACY_QR",
      /version 1/
    ],
    // CareCore tests/test_nfp_cupom_utils.py (per nfce.md): what a wrong-layout barcode pistol types.
    ["a pistol-mangled URL", `https:www.nfce.fazenda.sp.gov.brqrcodep=${spKey}|3|1`, "SCANNER_MANGLED", /barcode/],
    ["a short key", sp("3526042082696900012365001000002665174541495|3|1"), "KEY_FORMAT", /44 characters/],
    ["a letter in the check digits", sp(`${spKey.slice(0, 18)}A${spKey.slice(19)}|3|1`), "KEY_FORMAT", /44/],
    ["a wrong check digit", sp(`${spKey.slice(0, 43)}0|3|1`), "CHECK_DIGIT", /check digit is 0.*give 9/],
    // wendelpaco's exemplo.txt: a real tpEmis 9 receipt whose QR was cut after the total.
    [
      "a truncated offline QR",
      "http://nfe.sefaz.ba.gov.br/servicos/nfce/qrcode.aspx" +
        "?p=29241205349958000106650040003473369175470648|2|1|21|61.70",
      "MALFORMED_PAYLOAD",
      /incomplete or damaged/
    ],
    ["a damaged escape", sp(`${spKey}%7|3|1`), "MALFORMED_PAYLOAD", /%-escape/]
  ])("refuses %s", (_name, qr, reason, message) => {
    const refused = refusal(qr)
    expect(refused.reason).toBe(reason)
    expect(refused.message).toMatch(message)
  })

  it("refuses a model-55 key whose check digit is right", () => {
    const nfe = withDigit("3526042082696900012355001000002665174541495")
    expect(refusal(sp(`${nfe}|3|1`))).toMatchObject({ reason: "NOT_MODEL_65", message: expect.stringMatching(/55/) })
  })

  it("refuses a state code that does not exist", () => {
    const key = withDigit("3426042082696900012365001000002665174541495")
    expect(refusal(sp(`${key}|3|1`))).toMatchObject({ reason: "UNKNOWN_STATE", message: expect.stringMatching(/34/) })
  })

  it("refuses a valid SP key on RS's host, and a look-alike host", () => {
    expect(refusal(`https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx?p=${spKey}|3|1`)).toMatchObject({
      reason: "HOST_NOT_OFFICIAL",
      message: "www.sefaz.rs.gov.br is not an official NFC-e consultation site of SP, the state in the access key"
    })
    expect(refusal(`https://www.nfce.fazenda.sp.gov.br.evil.example/qrcode?p=${spKey}|3|1`).reason).toBe(
      "HOST_NOT_OFFICIAL"
    )
  })

  it("refuses a layout that does not fit the emission type", () => {
    // An online key (tpEmis 1) with the offline layout, and an offline key (tpEmis 9) with the online one.
    expect(refusal(sp(`${spKey}|3|1|05|12.50|||c2lnbmF0dXJl`)).reason).toBe("LAYOUT_MISMATCH")
    const offlineKey = withDigit("3526042082696900012365001000002665974541495")
    expect(refusal(sp(`${offlineKey}|3|1`))).toMatchObject({
      reason: "LAYOUT_MISMATCH",
      message: expect.stringMatching(/emission type \(9\) calls for the offline one/)
    })
  })

  it("refuses a test invoice outside a sandbox, and takes it on the homologation host in one", () => {
    const test = `https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=${spKey}|3|2`
    expect(refusal(test).reason).toBe("TEST_ENVIRONMENT")
    expect(decoded(test, { ...ANY_AGE, sandbox: true }).tp_amb).toBe(2)
    // A production invoice on the homologation host is not official.
    expect(refusal(`https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=${spKey}|3|1`).reason).toBe(
      "HOST_NOT_OFFICIAL"
    )
  })

  it("refuses an issue month in the future or past the age limit", () => {
    const limit = { now: NOW, maxAgeDays: 30, sandbox: false }
    expect(refusal(issuedIn("2612"), limit)).toMatchObject({ reason: "ISSUED_IN_FUTURE", message: /12\/2026/ })
    expect(decoded(issuedIn("2611"), limit).fields.aamm).toBe("2611")
    // October 2026 ended 15 days before NOW; September ended 45 days before.
    expect(decoded(issuedIn("2610"), limit).fields.aamm).toBe("2610")
    expect(refusal(issuedIn("2609"), limit)).toMatchObject({ reason: "TOO_OLD", message: /older than 30 days/ })
    expect(decoded(issuedIn("2609"), { ...limit, maxAgeDays: null }).fields.aamm).toBe("2609")
  })

  it("judges an offline receipt's age by its day", () => {
    const key = withDigit("3526112082696900012365001000002665974541495")
    const on = (day: string) => sp(`${key}|3|1|${day}|10.00|||c2ln`)
    const limit = { now: NOW, maxAgeDays: 30, sandbox: false }
    expect(refusal(on("16"), limit).reason).toBe("ISSUED_IN_FUTURE")
    expect(decoded(on("15"), limit).offline?.issue_date).toBe("2026-11-15")
    expect(refusal(sp(`${withDigit("3526022082696900012365001000002665974541495")}|3|1|30|1.00|||c2ln`)).reason).toBe(
      "MALFORMED_PAYLOAD"
    )
  })
})
