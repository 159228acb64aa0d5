import { appRouter } from "@fidelis/core"
import type { Command } from "commander"
import { createCli } from "trpc-cli"
import { cliRouter, type CustomCommand } from "./commands.js"
import { bashCompletion, zshCompletion } from "./completion.js"
import { EXIT_CODES_HELP } from "./exit-codes.js"
import type { Call } from "./transport.js"

export interface ProgramOutput {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
}

/** Long names of the global options; no option derived from a procedure may shadow them. */
const GLOBAL_OPTIONS = new Set(["url", "api-key", "empresa", "profile", "json", "quiet", "yes", "version", "help"])

const DESCRIPTION = [
  "Fidelis from the command line: every command is a procedure of the platform's API.",
  "Without --url it works in this process on DATABASE_URL or the embedded database in FIDELIS_DATA_DIR " +
    "(default: data at the repository root), as platform admin. With --url it calls that server over HTTP, " +
    "authenticated by the API key in FIDELIS_API_KEY or a profile (--api-key works too, but shows the key " +
    "to every local user in the process list and stays in the shell history).",
  "A profile of the config file (see fidelis config --help) can hold --url, --api-key and --empresa; " +
    "a flag wins over its FIDELIS_* variable, which wins over the profile."
].join("\n\n")

const EPILOGUE = `
Examples:
  fidelis empresas create --name "Padaria Sol" --id-name padaria-sol
  fidelis clients list --empresa padaria-sol --search ana
  fidelis points credit --client <id> --points 50 --idempotency-key order-1234
  fidelis clients import clientes.csv --empresa padaria-sol --dry-run
  fidelis --url https://fidelis.example.com points balance <client id> --json    # the key in FIDELIS_API_KEY
  fidelis config set --profile prod url https://fidelis.example.com && fidelis config set --profile prod api_key
  fidelis --profile prod clients list --search ana

${EXIT_CODES_HELP}`

const walk = (command: Command, visit: (command: Command) => void) => {
  visit(command)
  for (const sub of command.commands) walk(sub, visit)
}

/**
 * The commander program: trpc-cli's commands for every procedure, plus the global options. Every
 * command throws instead of exiting, so the caller decides the exit status and closes the
 * database first.
 */
export const buildProgram = (
  output: ProgramOutput,
  version: string,
  run: (call: Call) => Promise<void>,
  custom: Readonly<Record<string, CustomCommand>> = {},
  /** Adds commands of the CLI's own (not procedures), before every command is set up below. */
  extend: (program: Command) => void = () => {}
): Command => {
  const router = cliRouter(appRouter, run, GLOBAL_OPTIONS, custom)
  const cli = createCli({ router, name: "fidelis", version, description: DESCRIPTION })
  const program = cli.buildProgram({
    logger: { info: (text) => output.stdout(String(text)), error: (text) => output.stderr(String(text)) },
    prompts: false
  }) as Command
  program
    .option("--url <url>", "call the Fidelis server at this URL instead of working locally (env: FIDELIS_URL)")
    .option(
      "--api-key <key>",
      "API key for --url; prefer FIDELIS_API_KEY or a profile, as a flag shows in the process list " +
        "(env: FIDELIS_API_KEY)"
    )
    .option(
      "--empresa <id|slug>",
      "the empresa a company command acts on, for admins: local mode or an admin key (env: FIDELIS_EMPRESA)"
    )
    .option("--profile <name>", "the config file's profile to use instead of its default (env: FIDELIS_PROFILE)")
    .option("--json", "print the raw result as JSON, for scripts")
    .option("-q, --quiet", "print only identifiers, one per line (for xargs and shell loops)")
    .option(
      "-y, --yes",
      "do not ask before a destructive command (revoking a key, cancelling a coupon); required without a terminal"
    )
    // trpc-cli appends the list of subcommands, which the help lists anyway.
    .description(DESCRIPTION)
    .addHelpText("after", EPILOGUE)
  program
    .command("completion")
    .description('Print a shell completion script: eval "$(fidelis completion bash)" (or zsh)')
    .argument("<shell>", "bash or zsh")
    .action((shell: string) => {
      if (shell !== "bash" && shell !== "zsh") throw new Error(`completion: unknown shell "${shell}"; use bash or zsh`)
      output.stdout(shell === "bash" ? bashCompletion(program) : zshCompletion(program))
    })
  extend(program)
  walk(program, (command) => {
    command
      .exitOverride()
      .configureOutput({ writeOut: output.stdout, writeErr: output.stderr, outputError: (text, write) => write(text) })
      .configureHelp({ ...command.configureHelp(), showGlobalOptions: true })
      // Errors stay one line; --help is one flag away.
      .showHelpAfterError(false)
    // The list of subcommands shows the summary (first paragraph), the command's own help all of it.
    const [summary] = command.description().split("\n\n")
    if (summary !== undefined && summary !== command.description()) command.summary(summary)
  })
  return program
}
