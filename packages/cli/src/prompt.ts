import { createInterface } from "node:readline"
import { Writable } from "node:stream"
import { CommandFailed, ExitCode } from "./exit-codes.js"

/**
 * Asks one question on the terminal and resolves with the answer. `secret` hides what is typed (an
 * API key stays off the screen and out of the shell history). The terminal is in raw mode while
 * asking, so Ctrl-C arrives as a keystroke, not a signal: it ends the command as interrupted
 * (exit 130) instead of leaving the process waiting.
 */
export const ask = (terminal: NodeJS.WriteStream, question: string, options: { readonly secret?: boolean } = {}) =>
  new Promise<string>((resolve, reject) => {
    let muted = false
    // Echo goes through here, so a secret answer is never drawn.
    const echo = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (!muted) terminal.write(chunk)
        done()
      }
    })
    const prompt = createInterface({ input: process.stdin, output: echo, terminal: true })
    let settled = false
    // The Enter that answers is echoed unless muted; otherwise end the prompt's line here.
    const settle = (answered: boolean, outcome: () => void) => {
      if (settled) return
      settled = true
      if (muted || !answered) terminal.write("\n")
      prompt.close()
      outcome()
    }
    prompt.on("SIGINT", () => settle(false, () => reject(new CommandFailed("interrupted", ExitCode.Interrupted))))
    // Ctrl-D on an empty line: no answer.
    prompt.on("close", () => settle(false, () => reject(new CommandFailed("no answer given", ExitCode.Usage))))
    prompt.question(question, (answer) => settle(true, () => resolve(answer)))
    muted = options.secret === true
  })

/** Whether a question can be asked: a person at a terminal on both ends. */
export const canAsk = (terminal: NodeJS.WriteStream | undefined): terminal is NodeJS.WriteStream =>
  terminal !== undefined && process.stdin.isTTY === true
