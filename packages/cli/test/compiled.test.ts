import { spawnSync } from "node:child_process"
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fidelis, ROOT } from "./bin.js"

/**
 * A checkout of its own, so a test can edit "sources" without touching the real ones: the real bin,
 * node_modules (for tsx), one source file, and a stand-in for scripts/build.mjs that writes a bundle
 * printing its build number, or fails when FAIL_BUILD is set.
 */
const checkout = mkdtempSync(join(tmpdir(), "fidelis-compiled-"))
afterAll(() => rmSync(checkout, { recursive: true, force: true }))

const STAND_IN_BUILD = `
import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs"
if (process.env.FAIL_BUILD) process.exit(1)
const dist = new URL("../packages/cli/dist/", import.meta.url)
mkdirSync(dist, { recursive: true })
const build = Date.now()
const source = "packages/cli/src/main.ts"
writeFileSync(new URL("cli.js", dist), \`// fidelis-cli build \${build}: a stand-in
(function (require, __filename) { process.stdout.write("compiled \${build}\\\\n") })\`)
const { mtimeMs } = statSync(new URL(\`../\${source}\`, import.meta.url))
writeFileSync(new URL("build.json", dist), JSON.stringify({ build, inputs: { [source]: mtimeMs } }))
`

mkdirSync(join(checkout, "packages/cli/bin"), { recursive: true })
mkdirSync(join(checkout, "packages/cli/src"), { recursive: true })
mkdirSync(join(checkout, "scripts"))
for (const file of ["fidelis.js", "compiled.js"]) {
  copyFileSync(join(ROOT, "packages/cli/bin", file), join(checkout, "packages/cli/bin", file))
}
copyFileSync(join(ROOT, "packages/cli/package.json"), join(checkout, "packages/cli/package.json"))
symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"))
writeFileSync(join(checkout, "scripts/build.mjs"), STAND_IN_BUILD)
const SOURCE = join(checkout, "packages/cli/src/main.ts")
writeFileSync(SOURCE, 'process.stdout.write("sources\\n")\n')

const run = (env: Record<string, string> = {}) => {
  const { status, stdout, stderr } = spawnSync(process.execPath, [join(checkout, "packages/cli/bin/fidelis.js")], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    encoding: "utf8"
  })
  return { status, stdout, stderr }
}

const caches = () => readdirSync(join(checkout, "packages/cli/dist")).filter((file) => file.endsWith(".v8cache"))

/** Saves the source again, as an editor does, with a later modification time. */
const edit = () => {
  writeFileSync(SOURCE, readFileSync(SOURCE))
  const later = new Date(Date.now() + 5_000)
  utimesSync(SOURCE, later, later)
}

describe("the fidelis bin", () => {
  it("compiles first, then runs the build with V8's code cache until a source changes", () => {
    const first = run()
    expect(first.stderr).toBe("fidelis: the CLI is not compiled yet; compiling it (npm run build)\n")
    const [, build] = /^compiled (\d+)\n$/.exec(first.stdout) ?? []
    expect(build).toBeDefined()
    expect(caches()).toEqual([`cli.${build}.v8cache`])

    // Current: no notice, same build, and the cache is kept.
    expect(run()).toEqual({ status: 0, stdout: `compiled ${build}\n`, stderr: "" })
    expect(caches()).toEqual([`cli.${build}.v8cache`])

    // A cache V8 refuses (another Node version, other flags; here not a cache at all) is replaced.
    const cache = join(checkout, "packages/cli/dist", `cli.${build}.v8cache`)
    writeFileSync(cache, "not a cache")
    expect(run()).toEqual({ status: 0, stdout: `compiled ${build}\n`, stderr: "" })
    expect(readFileSync(cache, "utf8")).not.toBe("not a cache")

    edit()
    const rebuilt = run()
    expect(rebuilt.stderr).toBe(
      "fidelis: packages/cli/src/main.ts changed since the CLI was compiled; compiling it (npm run build)\n"
    )
    expect(rebuilt.stdout).toMatch(/^compiled \d+\n$/)
    expect(rebuilt.stdout).not.toBe(`compiled ${build}\n`)
    expect(run().stderr).toBe("")
  })

  it("runs the sources through tsx when compiling fails", () => {
    edit()
    expect(run({ FAIL_BUILD: "1" })).toEqual({
      status: 0,
      stdout: "sources\n",
      stderr:
        "fidelis: packages/cli/src/main.ts changed since the CLI was compiled; compiling it (npm run build)\n" +
        "fidelis: compiling failed; running the sources through tsx\n"
    })
  })

  it("finds the real build current: it lists the workspace files it was compiled from", async () => {
    // Vitest's global setup has just compiled the real CLI (test/support/build.ts).
    const build = JSON.parse(readFileSync(join(ROOT, "packages/cli/dist/build.json"), "utf8")) as {
      inputs: Record<string, number>
    }
    expect(Object.keys(build.inputs)).toEqual(
      expect.arrayContaining(["packages/cli/src/main.ts", "packages/core/src/router.ts", "packages/db/src/migrate.ts"])
    )
    expect(Object.keys(build.inputs).filter((path) => path.includes("node_modules"))).toEqual([])
    const version = await fidelis(["--version"])
    expect(version).toMatchObject({ code: 0, stderr: "" })
  })
})
