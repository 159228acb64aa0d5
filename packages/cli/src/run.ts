import { CommanderError, type Command } from "commander"
import packageJson from "../package.json" with { type: "json" }
import { stylesFor } from "./colour.js"
import { addConfigCommand } from "./config-command.js"
import { CommandFailed, ExitCode } from "./exit-codes.js"
import { importClientsCommand } from "./import.js"
import { inert, jsonText } from "./output.js"
import { buildProgram } from "./program.js"
import { createSession, type CliIo, type GlobalOptions } from "./session.js"

/**
 * Prints a failure as one line, or with `--json` as the error body a script reads (the server's
 * `detail`, `code` and `request_id`), and says which exit status it earns.
 */
const report = (error: unknown, io: CliIo, json: boolean): ExitCode => {
  // Commander has printed its own message (or the help or version asked for).
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage
  // trpc-cli hands back what a procedure threw, unwrapped from the mirror router's TRPCError.
  const failure =
    error instanceof CommandFailed
      ? error
      : new CommandFailed(error instanceof Error ? error.message : String(error), ExitCode.Failure)
  // A server's message may repeat what a stranger wrote: shown inert, like every value.
  if (json) io.stderr(`${jsonText(failure.body)}\n`)
  else io.stderr(`${io.styles.stderr.error("error:")} ${inert(failure.message)}\n`)
  return failure.exitCode
}

/**
 * Runs one CLI invocation (`argv` without the node and script paths) and resolves to its exit
 * status; never exits the process itself, so tests can run it in process.
 */
export const runCli = async (argv: ReadonlyArray<string>, io: Partial<CliIo> = {}): Promise<ExitCode> => {
  const env = io.env ?? process.env
  const fullIo: CliIo = {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env,
    // Progress bars draw on the real terminal only, never on a pipe or a caller's own stderr.
    terminal: io.stderr === undefined && process.stderr.isTTY ? process.stderr : undefined,
    styles: {
      stdout: stylesFor(io.stdout === undefined && process.stdout.isTTY, env),
      stderr: stylesFor(io.stderr === undefined && process.stderr.isTTY, env)
    },
    ...io
  }
  // The global options are read once a command runs, after commander has parsed them.
  const session = createSession(fullIo, () => program.opts<GlobalOptions>())
  const json = () => program.opts<GlobalOptions>().json === true
  const program: Command = buildProgram(
    fullIo,
    packageJson.version,
    session.run,
    { "clients.import": importClientsCommand({ io: fullIo, call: session.call, json }) },
    (root) => addConfigCommand(root, { io: fullIo, options: () => root.opts<GlobalOptions>() })
  )
  try {
    await program.parseAsync([...argv], { from: "user" })
    return ExitCode.Ok
  } catch (error) {
    return report(error, fullIo, json())
  } finally {
    await session.close()
  }
}
