import { Either } from "effect"
import { createHash, timingSafeEqual, verify, X509Certificate } from "node:crypto"

/**
 * What an offline QR carries to prove the store wrote it (nfce.md section 1): v2, a SHA-1 of its
 * fields and the store's CSC; v3, an RSA-SHA1 signature of its fields by the store's certificate.
 * `signed` is the fields before the proof, joined by `|`, as the payload holds them.
 */
export type OfflineProof =
  | { readonly kind: "csc"; readonly cscId: string; readonly signed: string; readonly hash: string }
  | { readonly kind: "signature"; readonly signed: string; readonly signature: string }

/** The proof of an offline payload (`p=` decoded) that decodeQr accepted; undefined for any other. */
export const proofOf = (payload: string): OfflineProof | undefined => {
  const fields = payload.split("|")
  if (fields.length !== 8) return undefined
  const signed = fields.slice(0, 7).join("|")
  if (fields[1] === "2") return { kind: "csc", cscId: fields[6]!, signed, hash: fields[7]! }
  if (fields[1] === "3") return { kind: "signature", signed, signature: fields[7]! }
  return undefined
}

/** The v2 `cHashQRCode`: UPPER(HEX(SHA1(fields + CSC))), the manual's formula. */
export const cscHash = (signed: string, csc: string) =>
  createHash("sha1").update(`${signed}${csc}`, "utf8").digest("hex").toUpperCase()

/** Whether a v2 hash is the one the CSC gives; either case of hex is accepted, as the XSD does. */
export const cscMatches = (proof: Extract<OfflineProof, { kind: "csc" }>, csc: string) => {
  const expected = Buffer.from(cscHash(proof.signed, csc), "utf8")
  const given = Buffer.from(proof.hash.toUpperCase(), "utf8")
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** Whether a v3 signature was made by the certificate's key over the QR's fields (RSA PKCS#1 v1.5, SHA-1). */
export const signatureMatches = (proof: Extract<OfflineProof, { kind: "signature" }>, pem: string) => {
  try {
    const certificate = new X509Certificate(pem)
    return verify(
      "sha1",
      Buffer.from(proof.signed, "utf8"),
      certificate.publicKey,
      Buffer.from(proof.signature, "base64")
    )
  } catch {
    return false
  }
}

/** What the company API says about a registered certificate. */
export interface CertificateInfo {
  readonly pem: string
  readonly subject: string
  readonly issuer: string
  readonly not_before: Date
  readonly not_after: Date
  readonly fingerprint: string
}

/** "C=BR\nO=Loja" as one line, "C=BR, O=Loja". */
const oneLine = (name: string) => name.split("\n").join(", ")

/**
 * A store's public certificate, parsed by Node's X.509 (OpenSSL): one PEM certificate with an RSA
 * key, not expired at `now`. Left: what is wrong, for people.
 */
export const parseCertificate = (pem: string, now: Date): Either.Either<CertificateInfo, string> => {
  if (/PRIVATE KEY/.test(pem))
    return Either.left("This holds a private key: send only the certificate, and keep the key on the store's system")
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    return Either.left("Not a PEM certificate: it must start with -----BEGIN CERTIFICATE-----")
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(pem)
  } catch {
    return Either.left("The certificate cannot be read: its PEM text is damaged or is not an X.509 certificate")
  }
  if (certificate.publicKey.asymmetricKeyType !== "rsa")
    return Either.left(
      `The certificate's key is ${certificate.publicKey.asymmetricKeyType ?? "of an unknown type"}; ` +
        "NFC-e QR codes are signed with RSA (ICP-Brasil e-CNPJ or e-CPF certificates)"
    )
  const notBefore = new Date(certificate.validFrom)
  const notAfter = new Date(certificate.validTo)
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime()))
    return Either.left("The certificate's validity dates cannot be read")
  if (notAfter.getTime() < now.getTime())
    return Either.left(
      `The certificate expired on ${notAfter.toISOString()}; register the one the store signs with now`
    )
  const begin = pem.indexOf("-----BEGIN CERTIFICATE-----")
  const end = pem.indexOf("-----END CERTIFICATE-----", begin) + "-----END CERTIFICATE-----".length
  return Either.right({
    pem: `${pem.slice(begin, end)}\n`,
    subject: oneLine(certificate.subject),
    issuer: oneLine(certificate.issuer),
    not_before: notBefore,
    not_after: notAfter,
    fingerprint: certificate.fingerprint256
  })
}
