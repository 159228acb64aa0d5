import { describe, expect, it } from "vitest"
import { canonicalEmail } from "../src/accounts/same-person.js"

describe("canonicalEmail", () => {
  it("lower-cases the whole address", () => {
    expect(canonicalEmail("Farmer@Example.COM")).toBe("farmer@example.com")
  })

  it("drops a +tag at every provider, the empty one and a second plus included", () => {
    expect(canonicalEmail("farmer+1@example.com")).toBe("farmer@example.com")
    expect(canonicalEmail("farmer+@example.com")).toBe("farmer@example.com")
    expect(canonicalEmail("farmer+a+b@uol.com.br")).toBe("farmer@uol.com.br")
  })

  it("drops dots only where the provider ignores them, and makes Gmail's two domains one", () => {
    expect(canonicalEmail("f.a.r.m.e.r@gmail.com")).toBe("farmer@gmail.com")
    expect(canonicalEmail("F.armer+x@GoogleMail.com")).toBe("farmer@gmail.com")
    expect(canonicalEmail("f.armer@example.com")).toBe("f.armer@example.com")
    // A dot in the domain is part of the domain.
    expect(canonicalEmail("farmer@mail.gmail.com")).toBe("farmer@mail.gmail.com")
  })

  it("keeps different people apart", () => {
    expect(canonicalEmail("farmer@gmail.com")).not.toBe(canonicalEmail("farmer1@gmail.com"))
    expect(canonicalEmail("farmer@example.com")).not.toBe(canonicalEmail("farmer@example.org"))
  })

  it("leaves a string without @ lower-cased (the contract refuses it before)", () => {
    expect(canonicalEmail(" Nobody ")).toBe("nobody")
  })
})
