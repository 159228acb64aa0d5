import { dictionary } from "@zxcvbn-ts/language-common"
import type { ValidationIssue } from "../errors.js"

/**
 * What a new password may not be (docs/decisions.md "Password policy"), beyond its length: blank,
 * one of the most common passwords (zxcvbn-ts's list of about 49,000, shipped in the package: no
 * network call), or something containing the account's own email or name. Checked by register and
 * reset before anything is hashed.
 */

/** Parts of an email or a name shorter than this are too common in passwords to refuse. */
const MIN_PERSONAL_LENGTH = 4

let common: ReadonlySet<string> | undefined

/** The list is lower-case; built on first use, so a process that never sets a password never holds it. */
const commonPasswords = () => (common ??= new Set(dictionary["passwords-common"]))

/** Lower-case, without accents: "Conceição" and "conceicao" are the same word to a guesser. */
const folded = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()

/** The account's own words a password may not contain: the email, its name before the @, each part of the name. */
const personalWords = (email: string, nome: string) => {
  const address = folded(email.trim())
  const words = [address, address.split("@")[0] ?? "", ...folded(nome).split(/[^\p{L}\p{N}]+/u)]
  return words.filter((word) => word.length >= MIN_PERSONAL_LENGTH)
}

const refusal = (msg: string, type: string): ValidationIssue => ({ loc: ["body", "password"], msg, type })

/** Why `password` cannot be this account's new password, in words for people; undefined when it can. */
export const passwordProblem = (
  password: string,
  account: { readonly email: string; readonly nome: string }
): ValidationIssue | undefined => {
  if (password.trim() === "") return refusal("The password must not be blank (only spaces)", "password_blank")
  const guessable = folded(password)
  if (commonPasswords().has(guessable)) {
    return refusal(
      "This is one of the most common passwords, which attackers try first: choose another",
      "password_too_common"
    )
  }
  if (personalWords(account.email, account.nome).some((word) => guessable.includes(word))) {
    return refusal("The password must not contain your email or your name", "password_personal")
  }
  return undefined
}
