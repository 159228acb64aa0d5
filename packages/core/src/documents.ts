import { z } from "zod"
import { digitsOnly } from "./contracts.js"

/** Brazilian document and phone rules, shared by every contract that takes them. */

const checkDigit = (digits: ReadonlyArray<number>, weights: ReadonlyArray<number>) => {
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0)
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

export const isValidCpf = (cpf: string): boolean => {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false
  const d = [...cpf].map(Number)
  const first = checkDigit(d.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2])
  const second = checkDigit(d.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
  return d[9] === first && d[10] === second
}

/**
 * Digits, or the alphanumeric CNPJ (in force since July 2026): letters in the first 12 positions,
 * each worth its ASCII code minus 48 in the check digits (RFB NT COCAD 49/2024), so digits keep theirs.
 */
export const isValidCnpj = (cnpj: string): boolean => {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false
  const d = [...cnpj].map((c) => c.charCodeAt(0) - 48)
  const first = checkDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  const second = checkDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  return d[12] === first && d[13] === second
}

/**
 * The 67 area codes (DDD) ANATEL assigns (Plano Geral de Códigos Nacionais). Numbers that look
 * right but are not (10, 20, 23, 25, 26, 29, 30, 36, 39, 40, 50, 52, 56-60, 70, 72, 76, 78, 80, 90)
 * belong to nobody.
 */
export const BRAZILIAN_AREA_CODES: ReadonlySet<string> = new Set(
  [
    "11 12 13 14 15 16 17 18 19",
    "21 22 24 27 28",
    "31 32 33 34 35 37 38",
    "41 42 43 44 45 46 47 48 49",
    "51 53 54 55",
    "61 62 63 64 65 66 67 68 69",
    "71 73 74 75 77 79",
    "81 82 83 84 85 86 87 88 89",
    "91 92 93 94 95 96 97 98 99"
  ].flatMap((line) => line.split(" "))
)

/**
 * Area code and subscriber number: a landline's 8 digits start with 2 to 5, a mobile's 9 digits
 * with 9 (the ninth digit every mobile carries since 2016).
 */
const isNationalNumber = (digits: string) =>
  BRAZILIAN_AREA_CODES.has(digits.slice(0, 2)) && /^\d\d(?:[2-5]\d{7}|9\d{8})$/.test(digits)

/** What a valid phone looks like, for the refusal's text (spec 7.2: it asks for a valid area code). */
export const PHONE_RULE =
  "Invalid phone: use a Brazilian number with a valid area code (DDD), e.g. (11) 91234-5678 or " +
  "(11) 3456-7890, optionally with the country code 55"

/**
 * Digits of a Brazilian phone with country code: area code + number, optionally already prefixed by
 * 55. An explicit `+` with another country code is refused rather than read as a Brazilian number.
 */
export const normalizeBrazilianPhone = (raw: string): string | undefined => {
  const digits = digitsOnly(raw)
  if (raw.trim().startsWith("+")) {
    return digits.startsWith("55") && isNationalNumber(digits.slice(2)) ? digits : undefined
  }
  if (isNationalNumber(digits)) return `55${digits}`
  if (digits.startsWith("55") && isNationalNumber(digits.slice(2))) return digits
  return undefined
}

export const Cpf = z
  .string()
  .max(20)
  .transform(digitsOnly)
  .refine(isValidCpf, "Invalid CPF: 11 digits with valid check digits")
  .describe("CPF, with or without punctuation; stored as digits")

export const Cnpj = z
  .string()
  .max(24)
  .transform(digitsOnly)
  .refine(isValidCnpj, "Invalid CNPJ: 14 digits with valid check digits")
  .describe("CNPJ, with or without punctuation; stored as digits")

/** A CNPJ an NFC-e may name: digits or the alphanumeric form, punctuation dropped, letters in upper case. */
export const AlphanumericCnpj = z
  .string()
  .max(24)
  .transform((raw) => raw.replace(/[\s./-]+/g, "").toUpperCase())
  .refine(isValidCnpj, "Invalid CNPJ: 12 digits or letters and 2 check digits, all valid")
  .describe("CNPJ, with or without punctuation; letters allowed in the first 12 positions (alphanumeric CNPJ)")

/** Stored and shown in international format: `+55` + area code + number. */
export const Telefone = z
  .string()
  .max(30)
  .transform((raw, ctx) => {
    const phone = normalizeBrazilianPhone(raw)
    if (phone === undefined) {
      ctx.addIssue({ code: "custom", message: PHONE_RULE })
      return z.NEVER
    }
    return `+${phone}`
  })
  .describe("Brazilian phone with area code, any formatting; stored as +55DDNNNNNNNNN")
