import { Either } from "effect"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { cscHash, cscMatches, parseCertificate, proofOf, signatureMatches } from "../src/nfce/proof.js"
import { openWith, sealWith } from "../src/secrets.js"
import { makeCertificate } from "./certificates.js"

/** Manual DANFE NFC-e v5.0's worked example (nfce.md section 1, "v2 hash"). */
const MANUAL_CSC = "SEU-CODIGO-CSC-CONTRIBUINTE-36-CARACTERES"

describe("the v2 CSC hash", () => {
  it("reproduces the manual's worked example", () => {
    expect(cscHash("28170800156225000131650110000151341562040824|2|1|1", MANUAL_CSC)).toBe(
      "DC6AE2C2B9A992BE59679AC365E29922DE6B7511"
    )
  })

  it("checks an offline payload's hash against the CSC, in either case of hex", () => {
    const signed = "28170800156225000131650110000151349562040824|2|1|02|60.90|" + "6d".repeat(28) + "|1"
    const hash = cscHash(signed, MANUAL_CSC)
    const proof = proofOf(`${signed}|${hash.toLowerCase()}`)
    expect(proof).toEqual({ kind: "csc", cscId: "1", signed, hash: hash.toLowerCase() })
    if (proof?.kind !== "csc") throw new Error("not a v2 proof")
    expect(cscMatches(proof, MANUAL_CSC)).toBe(true)
    expect(cscMatches(proof, `${MANUAL_CSC}X`)).toBe(false)
    // The total is part of what was hashed: raising it breaks the hash.
    const forged = proofOf(`${signed.replace("60.90", "6090.00")}|${hash}`)
    if (forged?.kind !== "csc") throw new Error("not a v2 proof")
    expect(cscMatches(forged, MANUAL_CSC)).toBe(false)
  })
})

describe("the v3 signature", () => {
  it("verifies with the certificate of the key that signed, and with no other", async () => {
    const [store, other] = await Promise.all([makeCertificate(), makeCertificate()])
    const signed = "35261111222333000181650010000001239123456780|3|1|05|12.50|2|12345678901"
    const proof = proofOf(`${signed}|${store.sign(signed)}`)
    if (proof?.kind !== "signature") throw new Error("not a v3 proof")
    expect(signatureMatches(proof, store.pem)).toBe(true)
    expect(signatureMatches(proof, other.pem)).toBe(false)
    expect(signatureMatches({ ...proof, signed: signed.replace("12.50", "1250.00") }, store.pem)).toBe(false)
    expect(signatureMatches({ ...proof, signature: "AAAA" }, store.pem)).toBe(false)
  })

  it("takes an RSA certificate, naming its subject and validity, and refuses what is not one", async () => {
    const now = new Date()
    const good = parseCertificate((await makeCertificate({ cn: "LOJA SOL LTDA:11222333000181" })).pem, now)
    expect(Either.getOrThrow(good)).toMatchObject({
      subject: "CN=LOJA SOL LTDA:11222333000181, C=BR",
      not_after: expect.any(Date),
      fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
    })
    const refusal = (pem: string) => Either.flip(parseCertificate(pem, now)).pipe(Either.getOrThrow)
    expect(refusal((await makeCertificate({ ec: true })).pem)).toMatch(/RSA/)
    expect(refusal((await makeCertificate({ fromDays: -20, toDays: -10 })).pem)).toMatch(/expired/)
    expect(refusal("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----")).toMatch(/private key/)
    expect(refusal("hello")).toMatch(/PEM/)
    expect(refusal("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----")).toMatch(
      /cannot be read/
    )
  })
})

describe("sealed secrets", () => {
  const key = randomBytes(32)

  it("open with the key and context that sealed them, and with nothing else", () => {
    const sealed = sealWith(key, "A1B2C3D4-E5F6", "nfce_cscs:e:c:1")
    expect(sealed).not.toContain("A1B2C3D4")
    expect(openWith(key, sealed, "nfce_cscs:e:c:1")).toBe("A1B2C3D4-E5F6")
    expect(openWith(key, sealed, "nfce_cscs:e:c:2")).toBeUndefined()
    expect(openWith(randomBytes(32), sealed, "nfce_cscs:e:c:1")).toBeUndefined()
    const parts = sealed.split(".")
    const body = Buffer.from(parts[3]!, "base64url")
    body[0]! ^= 1
    expect(
      openWith(key, [...parts.slice(0, 3), body.toString("base64url")].join("."), "nfce_cscs:e:c:1")
    ).toBeUndefined()
    expect(openWith(key, "garbage", "nfce_cscs:e:c:1")).toBeUndefined()
  })

  it("seal the same secret differently each time", () => {
    expect(sealWith(key, "x", "c")).not.toBe(sealWith(key, "x", "c"))
  })
})
