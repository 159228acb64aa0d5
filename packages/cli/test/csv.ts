/** Test data for imports: valid CPFs (check digits computed) and CSV files of clients. */

const checkDigit = (digits: ReadonlyArray<number>, firstWeight: number) => {
  const rest = digits.reduce((sum, d, i) => sum + d * (firstWeight - i), 0) % 11
  return rest < 2 ? 0 : 11 - rest
}

/** The n-th of a sequence of distinct valid CPFs; `seed` separates sequences. */
export const cpfOf = (n: number, seed = 1): string => {
  const base = Array.from(String(100_000_000 + seed * 1_000_000 + n).slice(-9), Number)
  const first = checkDigit(base, 10)
  const second = checkDigit([...base, first], 11)
  return [...base, first, second].join("")
}

/**
 * A CSV of `count` clients with the header `nome,email,telefone,cpf`; the data rows listed in `bad`
 * (1-based, so data row 1 is file line 2) get an invalid email or CPF.
 */
export const clientsCsv = (count: number, bad: ReadonlySet<number>, seed = 1): string => {
  const lines = ["nome,email,telefone,cpf"]
  for (let n = 1; n <= count; n++) {
    const email = bad.has(n) && n % 2 === 0 ? "not-an-email" : `cliente${n}.s${seed}@example.com`
    const cpf = bad.has(n) && n % 2 === 1 ? "123.456.789-00" : cpfOf(n, seed)
    lines.push(`"Cliente ${n}, Silva",${email},(11) 9${String(8000_0000 + (n % 1000_0000)).padStart(8, "0")},${cpf}`)
  }
  return `${lines.join("\n")}\n`
}
