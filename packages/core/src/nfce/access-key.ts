import { Either } from "effect"
import type { AccessKeyFields, QrRefusal, Uf } from "./contracts.js"

/** IBGE state codes, the key's first two characters (nfce.md section 2). Any other value is not a state. */
export const UF_BY_CODE: Readonly<Record<string, Uf>> = {
  "11": "RO",
  "12": "AC",
  "13": "AM",
  "14": "RR",
  "15": "PA",
  "16": "AP",
  "17": "TO",
  "21": "MA",
  "22": "PI",
  "23": "CE",
  "24": "RN",
  "25": "PB",
  "26": "PE",
  "27": "AL",
  "28": "SE",
  "29": "BA",
  "31": "MG",
  "32": "ES",
  "33": "RJ",
  "35": "SP",
  "41": "PR",
  "42": "SC",
  "43": "RS",
  "50": "MS",
  "51": "MT",
  "52": "GO",
  "53": "DF"
}

/**
 * The layout the NFC-e XSD gives the key since the alphanumeric CNPJ (July 2026): letters may sit in
 * the emitter's first 12 positions (7-18), never in its check digits or anywhere else.
 */
const KEY_SHAPE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/

/**
 * The mod-11 check digit of the first 43 characters (MOC 5.4): weights 2..9 from the right, and each
 * character worth its ASCII code minus 48, so digits keep their value and `A` is 17 (RFB NT COCAD 49/2024).
 */
export const checkDigit = (first43: string): number => {
  let sum = 0
  for (let i = first43.length - 1, weight = 2; i >= 0; i--, weight = weight === 9 ? 2 : weight + 1) {
    sum += (first43.charCodeAt(i) - 48) * weight
  }
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

const refuse = (reason: QrRefusal["reason"], message: string) => Either.left<QrRefusal>({ reason, message })

/**
 * The 44-character access key split into its fields, or why it is not an NFC-e key. The checks run
 * from the most basic up, so a key with a bad check digit is reported as such even if its model is 55.
 */
export const parseAccessKey = (key: string): Either.Either<AccessKeyFields, QrRefusal> => {
  if (!KEY_SHAPE.test(key)) {
    return refuse(
      "KEY_FORMAT",
      `The access key must be 44 characters (digits, with letters only in the issuer's positions 7-18); ` +
        `got ${key.length} characters`
    )
  }
  const expected = checkDigit(key.slice(0, 43))
  if (Number(key[43]) !== expected) {
    return refuse("CHECK_DIGIT", `The access key's check digit is ${key[43]}, but its other digits give ${expected}`)
  }
  const fields: AccessKeyFields = {
    cuf: key.slice(0, 2),
    aamm: key.slice(2, 6),
    issuer: key.slice(6, 20),
    mod: key.slice(20, 22),
    serie: key.slice(22, 25),
    nnf: key.slice(25, 34),
    tp_emis: key.slice(34, 35),
    cnf: key.slice(35, 43),
    cdv: key.slice(43)
  }
  if (fields.mod !== "65") {
    return refuse(
      "NOT_MODEL_65",
      `This access key is of a model ${fields.mod} document, not a consumer receipt (NFC-e, model 65)`
    )
  }
  if (!(fields.cuf in UF_BY_CODE)) {
    return refuse("UNKNOWN_STATE", `The access key starts with ${fields.cuf}, which is no Brazilian state's code`)
  }
  const month = Number(fields.aamm.slice(2))
  if (month < 1 || month > 12) {
    return refuse("KEY_FORMAT", `The access key's issue month (${fields.aamm}) is not a month`)
  }
  return Either.right(fields)
}
