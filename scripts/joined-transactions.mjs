// Fails when core code outside the allowed files calls @effect/sql's `withTransaction` directly: a
// service inside another's transaction would nest a SAVEPOINT again, one round trip more per call.
// Services take `inTransaction(sql)` from @fidelis/db (docs/decisions.md, "Joined transactions").
// Part of `npm run lint`.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"

// They run at the top by construction: the job worker's bookkeeping and the auth cache's notify.
const ALLOWED = new Set(["packages/core/src/jobs/worker.ts", "packages/core/src/auth-cache.ts"])

const files = execFileSync("git", ["ls-files", "-z", "--", "packages/core/src/*.ts"], { encoding: "utf8" })
  .split("\0")
  .filter((file) => file !== "" && existsSync(file) && !ALLOWED.has(file))

let found = 0
for (const file of files) {
  readFileSync(file, "utf8")
    .split(/\r?\n/)
    .forEach((line, index) => {
      if (/\.withTransaction\b/.test(line)) {
        found++
        console.error(`${file}:${index + 1}: withTransaction; use inTransaction(sql) from @fidelis/db`)
      }
    })
}
if (found > 0) process.exit(1)
