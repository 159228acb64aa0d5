import { spawn, type ChildProcess } from "node:child_process"
import { options, ROOT, RUN } from "./options.js"

/**
 * `--profile`: node's own sampling profiler over the process's whole life (start-up, warm-up and the
 * measured pass; bench/profile-summary.ts can skip the start), written when it exits, into a folder
 * per process: a process run through tsx writes one profile per thread (its loader has its own).
 */
const profiled = (name: string) =>
  options.profile ? ["--cpu-prof", `--cpu-prof-dir=${ROOT}bench/profiles/${RUN}/${name}`] : []

/** A server the bench started, and the port it listens on. */
export interface Proc {
  readonly port: number
  readonly child: ChildProcess
}

/**
 * Spawns an entry point (compiled JavaScript as is, TypeScript through tsx) and waits for its
 * `listening <port>` line (or Fidelis's JSON log).
 */
export const start = (entry: string, env: Record<string, string>, profile: string): Promise<Proc> =>
  new Promise((resolve, reject) => {
    const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : []
    const child = spawn(process.execPath, [...loader, ...profiled(profile), entry], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), 300_000)
    // Once the port is known the server's access log is drained unread: keeping and rescanning it
    // would cost the load generator, which shares the machine's two cores, CPU per request.
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const port =
        /listening (\d+)/.exec(output)?.[1] ?? /"message":"listening","url":"http:\/\/[^:]+:(\d+)"/.exec(output)?.[1]
      if (port) {
        clearTimeout(timer)
        child.stdout!.off("data", onData)
        child.stdout!.resume()
        resolve({ port: Number(port), child })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code}:\n${output}`))
    })
  })

export const stop = (proc: Proc) =>
  new Promise<void>((resolve) => {
    if (proc.child.exitCode !== null) return resolve()
    proc.child.once("exit", () => resolve())
    proc.child.kill("SIGTERM")
  })

/** Runs a command to completion, its progress on our stderr; resolves with its stdout. */
export const runScript = (entry: string, argv: string[], env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${entry} exited with ${code}`))))
  })
