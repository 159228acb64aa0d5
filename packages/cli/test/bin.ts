import { spawn, type ChildProcess } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url))

export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess, timeoutMs: number) =>
  new Promise<Outcome>((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    // A CLI that hangs (an open database, a stray handle) fails the test instead of stalling it.
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`fidelis did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** A config file no test writes: a developer's own ~/.config/fidelis never steers a test. */
const NO_CONFIG = join(tmpdir(), "fidelis-test-no-config", "config.json")

/**
 * Runs the `fidelis` bin as a user would, in a clean environment: only PATH and `env`, so a
 * developer's FIDELIS_URL, DATABASE_URL or config file never leaks into a test. `input`, when
 * given, is piped to its stdin; `cwd` is the folder it runs from (the repository root by default).
 */
export const fidelis = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  timeoutMs = 45_000,
  input?: string,
  cwd = ROOT
) => {
  const child = spawn(process.execPath, [join(ROOT, "packages/cli/bin/fidelis.js"), ...args], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", FIDELIS_CONFIG: NO_CONFIG, ...env },
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"]
  })
  child.stdin?.end(input)
  return collect(child, timeoutMs)
}

/** The parsed `--json` output of a command that succeeded: exit 0 and nothing on stderr. */
export const json = <T>(outcome: Outcome): T => {
  expect(outcome.stderr).toBe("")
  expect(outcome.code).toBe(0)
  return JSON.parse(outcome.stdout) as T
}

/** Starts a TypeScript fixture as its own process (the embedded database is locked per process). */
export const startFixture = (file: string, env: Record<string, string>) =>
  spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL(`fixtures/${file}`, import.meta.url))], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
