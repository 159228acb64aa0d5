export { CommandFailed, ExitCode } from "./exit-codes.js"
export { runCli } from "./run.js"
export type { CliIo } from "./session.js"
