import { execFile } from "node:child_process"
import { appendFile, cp, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterEach, describe, expect, it } from "vitest"

// scripts/doors.mjs (part of `npm run lint`) on the real core and on copies with one import put back.
const run = promisify(execFile)
const SOURCE = join(import.meta.dirname, "../packages/core/src")
const doors = (dir: string) =>
  run(process.execPath, ["scripts/doors.mjs", dir], { cwd: join(import.meta.dirname, "..") }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
    (error: { code: number; stdout: string; stderr: string }) => error
  )

let copy: string | undefined
afterEach(async () => {
  if (copy !== undefined) await rm(copy, { recursive: true, force: true })
  copy = undefined
})

/** A copy of core with one line added to one file. */
const withLine = async (file: string, line: string) => {
  copy = await mkdtemp(join(tmpdir(), "fidelis-doors-"))
  await cp(SOURCE, copy, { recursive: true })
  await appendFile(join(copy, file), `\n${line}\n`)
  return copy
}

describe("scripts/doors.mjs", () => {
  it("passes today's core: no area loop and no import back up", async () => {
    const { code, stdout } = await doors(SOURCE)
    expect(code).toBe(0)
    expect(stdout).toMatch(/0 area loops, 0 imports back up/)
  })

  it("refuses an import past another area's door", async () => {
    const { code, stderr } = await doors(
      await withLine("points/service.ts", 'import { insertEvent } from "../timeline/events.js"')
    )
    expect(code).toBe(1)
    expect(stderr).toContain("points/service.ts imports timeline/events.ts: past timeline's door")
  })

  it("refuses a kernel file that imports an area", async () => {
    const { code, stderr } = await doors(await withLine("trpc.ts", 'import { Team } from "./team/service.js"'))
    expect(code).toBe(1)
    expect(stderr).toContain("trpc.ts imports team/service.ts: the kernel imports no area")
  })

  it("refuses areas that import one another in a loop, and counts the imports that run back up", async () => {
    const { code, stdout, stderr } = await doors(
      await withLine("timeline/service.ts", 'import { Points } from "../points/service.js"')
    )
    expect(code).toBe(1)
    expect(stderr).toMatch(/areas import one another in a loop: .*points.*timeline/)
    expect(stdout).not.toMatch(/ 0 imports back up/)
  })
})
