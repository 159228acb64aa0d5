import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"

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

/**
 * Runs the `fidelis` bin as a user would, in a clean environment: only PATH and `env`, so a
 * developer's FIDELIS_URL or DATABASE_URL never leaks into a test.
 */
export const fidelis = (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 45_000) =>
  collect(
    spawn(process.execPath, ["packages/cli/bin/fidelis.js", ...args], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    }),
    timeoutMs
  )

/** Starts a TypeScript fixture as its own process (the embedded database is locked per process). */
export const startFixture = (file: string, env: Record<string, string>) =>
  spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL(`fixtures/${file}`, import.meta.url))], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
