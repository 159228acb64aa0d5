import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

const SHOWN = 20

/**
 * Prints the slowest test files at the end of a run (CI's log shows its tail), so the next change to
 * keep the run under its time budget starts from numbers, not guesses.
 */
export default class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const rows = modules
      .map((module) => ({ file: relative(process.cwd(), module.moduleId), ms: module.diagnostic().duration }))
      .toSorted((a, b) => b.ms - a.ms)
    const total = rows.reduce((sum, row) => sum + row.ms, 0)
    const lines = rows.slice(0, SHOWN).map((row) => `${(row.ms / 1000).toFixed(0).padStart(6)} s  ${row.file}`)
    console.log(
      `\nslowest test files (of ${rows.length}, ${(total / 1000).toFixed(0)} s in all):\n${lines.join("\n")}\n`
    )
  }
}
