/** Levenshtein edit distance: single-character insertions, deletions and substitutions. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * The candidate nearest to `word` by edit distance (ignoring case; the first on a tie), if it is
 * within `maxDistance` changes: by default a third of the word's length, and at least 2, which
 * catches typos without suggesting unrelated names.
 */
export const closest = (
  word: string,
  candidates: Iterable<string>,
  maxDistance = Math.max(2, Math.floor(word.length / 3))
): string | undefined => {
  let best: { candidate: string; distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase())
    if (best === undefined || distance < best.distance) best = { candidate, distance }
  }
  return best !== undefined && best.distance <= maxDistance ? best.candidate : undefined
}
