import { createPrivateKey, sign, webcrypto, type KeyObject } from "node:crypto"

// tsyringe, inside @peculiar/x509, needs the Reflect metadata polyfill in place before it loads.
await import("reflect-metadata")
const x509 = await import("@peculiar/x509")

x509.cryptoProvider.set(webcrypto as Crypto)

const DAY_MS = 86_400_000

export interface TestCertificate {
  /** The certificate, PEM: what a store registers. */
  readonly pem: string
  /** Signs text as a v3 offline QR's `assinatura`: RSA-SHA1, base64. */
  readonly sign: (text: string) => string
}

/**
 * A self-signed certificate like a store's e-CNPJ, made here: an RSA key (or, to be refused, an EC
 * one) valid from `fromDays` to `toDays` days around now.
 */
export const makeCertificate = async (
  options: { readonly cn?: string; readonly ec?: boolean; readonly fromDays?: number; readonly toDays?: number } = {}
): Promise<TestCertificate> => {
  const algorithm = options.ec
    ? { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" }
    : { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${options.cn ?? "LOJA TESTE LTDA:11222333000181"}, C=BR`,
    notBefore: new Date(Date.now() + (options.fromDays ?? -1) * DAY_MS),
    notAfter: new Date(Date.now() + (options.toDays ?? 365) * DAY_MS),
    keys,
    signingAlgorithm: algorithm
  })
  const key: KeyObject = createPrivateKey({
    key: Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)),
    format: "der",
    type: "pkcs8"
  })
  return {
    pem: certificate.toString("pem"),
    sign: (text) => sign("sha1", Buffer.from(text, "utf8"), key).toString("base64")
  }
}
