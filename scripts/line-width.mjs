// Fails when a tracked .ts/.js/.mjs file has a line longer than 120 characters, printing file:line for
// each. Prettier (width 120) never splits string or template literals nor comments, and oxlint has no
// max-len rule, so this keeps those lines short. Part of `npm run lint`.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"

const MAX_WIDTH = 120

const files = execFileSync("git", ["ls-files", "-z", "--", "*.ts", "*.js", "*.mjs"], { encoding: "utf8" })
  .split("\0")
  .filter((file) => file !== "" && existsSync(file))

let long = 0
for (const file of files) {
  readFileSync(file, "utf8")
    .split(/\r?\n/)
    .forEach((line, index) => {
      // Characters, not UTF-16 units or bytes: "é" and "±" count once.
      const width = [...line].length
      if (width > MAX_WIDTH) {
        long++
        console.error(`${file}:${index + 1}: ${width} characters (max ${MAX_WIDTH})`)
      }
    })
}
if (long > 0) {
  console.error(`${long} line(s) longer than ${MAX_WIDTH} characters: split the string, template or comment.`)
  process.exit(1)
}
