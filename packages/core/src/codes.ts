import { randomBytes } from "node:crypto"

/** Unambiguous upper-case alphabet (no 0/O/1/I/L) for codes people read aloud or type. */
const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

/**
 * A random code of `length` characters from the unambiguous alphabet (about 4.95 bits each).
 * Rejection sampling keeps every character equally likely.
 */
export const humanCode = (length: number): string => {
  const out: string[] = []
  const limit = 256 - (256 % CODE_ALPHABET.length)
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out.push(CODE_ALPHABET[byte % CODE_ALPHABET.length]!)
    }
  }
  return out.join("")
}
