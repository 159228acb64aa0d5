import { ZxcvbnFactory } from "@zxcvbn-ts/core"
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common"

/**
 * How strong a `FIDELIS_ADMIN_KEY` must be (docs/decisions.md "Admin key strength"): it opens every
 * empresa, so it must not be guessable by anyone who can reach the server.
 */
export const ADMIN_KEY_MIN_BITS = 128

/**
 * A long phrase can have many characters and still be guessed from words; past its characters, the
 * key must also resist a search for words, keyboard walks, repeats, sequences and dates this long.
 */
const PATTERN_MIN_BITS = 96

const HOW_TO_MAKE_ONE = "make one with `openssl rand -hex 32` (or `node -p \"crypto.randomBytes(32).toString('hex')\"`)"

/** Bits per character of the smallest usual alphabet that holds every character of `key`. */
const bitsPerCharacter = (key: string) => {
  if (/^[0-9a-f]+$/.test(key) || /^[0-9A-F]+$/.test(key)) return 4
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/]
  const sizes = [26, 26, 10, 33]
  return Math.log2(classes.reduce((pool, pattern, i) => (pattern.test(key) ? pool + sizes[i]! : pool), 0))
}

let guesser: ZxcvbnFactory | undefined

/**
 * The bits a guesser who knows the usual patterns needs: zxcvbn-ts's estimate, whose brute-forced
 * characters count as 10 guesses each, with those characters counted at the key's own alphabet.
 */
const patternBits = (key: string, perCharacter: number) => {
  // Built on first use (a few hundred milliseconds): a process without an admin key never builds it.
  guesser ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs })
  const result = guesser.check(key)
  const bruteForced = result.sequence
    .filter((match) => match.pattern === "bruteforce")
    .reduce((sum, match) => sum + match.token.length, 0)
  return result.guessesLog10 * Math.log2(10) + bruteForced * Math.max(0, perCharacter - Math.log2(10))
}

/** Why `key` cannot be the admin key, in words for the operator; undefined when it can. */
export const adminKeyProblem = (key: string): string | undefined => {
  const perCharacter = bitsPerCharacter(key)
  const bits = Math.floor(key.length * perCharacter)
  if (bits < ADMIN_KEY_MIN_BITS) {
    return (
      `too weak for an admin key: about ${bits} bits by its length and characters, at least ` +
      `${ADMIN_KEY_MIN_BITS} are needed (32 hex digits or 22 random letters and digits); ${HOW_TO_MAKE_ONE}`
    )
  }
  if (patternBits(key, perCharacter) < PATTERN_MIN_BITS) {
    return `too weak for an admin key: made of words, repeats or sequences a guesser tries first; ${HOW_TO_MAKE_ONE}`
  }
  return undefined
}
