import { runCli } from "./run.js"

// `fidelis clients list | head` closes stdout early: not a failure, and the database must still be
// closed properly, so the rest of the output is dropped rather than crashing the process.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error
})

// The first Ctrl-C interrupts the call in flight and still closes the database; a second one kills.
const interrupt = new AbortController()
process.once("SIGINT", () => interrupt.abort())

void runCli(process.argv.slice(2), { signal: interrupt.signal }).then((code) => {
  process.exitCode = code
})
