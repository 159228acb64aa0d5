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

export const isValidCnpj = (cnpj: string): boolean => {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false
  const d = [...cnpj].map(Number)
  const first = checkDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  const second = checkDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  return d[12] === first && d[13] === second
}

/** A real area code (DDD 11..99, no zero digit) and, for 11 digits, the mobile leading 9. */
const isNationalNumber = (digits: string) => /^[1-9][1-9]\d{8}$/.test(digits) || /^[1-9][1-9]9\d{8}$/.test(digits)

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

/** Stored and shown in international format: `+55` + area code + number. */
export const Telefone = z
  .string()
  .max(30)
  .transform((raw, ctx) => {
    const phone = normalizeBrazilianPhone(raw)
    if (phone === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "Invalid phone: use a Brazilian number with area code, e.g. +55 11 91234-5678"
      })
      return z.NEVER
    }
    return `+${phone}`
  })
  .describe("Brazilian phone with area code, any formatting; stored as +55DDNNNNNNNNN")
