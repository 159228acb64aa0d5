/** Mail providers that deliver `a.b.c@` to `abc@`, each by the domain it is known as. */
const DOTS_IGNORED: Readonly<Record<string, string>> = { "gmail.com": "gmail.com", "googlemail.com": "gmail.com" }

/**
 * The mailbox an address reaches, as far as we can tell without asking its provider: lower case,
 * without a `+tag` (every provider we know delivers `ana+x@` to `ana@`), and for the providers that
 * ignore dots in the local part, without them (Gmail's two domains are one). Two addresses with the
 * same canonical form are one person's, which is what the self-referral check needs to know.
 */
export const canonicalEmail = (email: string): string => {
  const lower = email.trim().toLowerCase()
  const at = lower.lastIndexOf("@")
  if (at < 0) return lower
  const domain = lower.slice(at + 1)
  const local = lower.slice(0, at).split("+")[0]!
  const alias = DOTS_IGNORED[domain]
  return alias === undefined ? `${local}@${domain}` : `${local.replaceAll(".", "")}@${alias}`
}
