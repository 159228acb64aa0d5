import { describe, expect, it } from "vitest"
import { Cnpj, Cpf, isValidCnpj, isValidCpf, normalizeBrazilianPhone, Telefone } from "../src/documents.js"

describe("Brazilian documents", () => {
  it("checks CPF check digits", () => {
    expect(isValidCpf("52998224725")).toBe(true)
    expect(isValidCpf("52998224724")).toBe(false)
    expect(isValidCpf("11111111111")).toBe(false)
    expect(isValidCpf("5299822472")).toBe(false)
    expect(Cpf.parse("529.982.247-25")).toBe("52998224725")
    expect(Cpf.safeParse("529.982.247-26").success).toBe(false)
  })

  it("checks CNPJ check digits", () => {
    expect(isValidCnpj("11222333000181")).toBe(true)
    expect(isValidCnpj("11222333000182")).toBe(false)
    expect(isValidCnpj("00000000000000")).toBe(false)
    expect(Cnpj.parse("11.222.333/0001-81")).toBe("11222333000181")
  })

  it("normalizes Brazilian phones to +55, area code and number", () => {
    expect(normalizeBrazilianPhone("(11) 98765-4321")).toBe("5511987654321")
    expect(normalizeBrazilianPhone("1133334444")).toBe("551133334444")
    expect(normalizeBrazilianPhone("+55 11 98765-4321")).toBe("5511987654321")
    expect(normalizeBrazilianPhone("+1 415 555 0100")).toBeUndefined()
    expect(normalizeBrazilianPhone("123")).toBeUndefined()
    // 11 digits are a mobile: the number after the area code starts with 9.
    expect(normalizeBrazilianPhone("11 8765-43210")).toBeUndefined()
    expect(normalizeBrazilianPhone("01 98765-4321")).toBeUndefined()
    expect(Telefone.parse("11 98765 4321")).toBe("+5511987654321")
    expect(Telefone.safeParse("98765").success).toBe(false)
  })
})
