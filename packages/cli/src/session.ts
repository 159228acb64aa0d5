import { appRouter, catalogueOf } from "@fidelis/core"
import type { Styles } from "./colour.js"
import { CommandFailed, ExitCode } from "./exit-codes.js"
import { openLocal } from "./local.js"
import { outputMode, render } from "./output.js"
import { configPath, readConfig, requestedProfile, selectProfile } from "./profiles.js"
import { ask, canAsk } from "./prompt.js"
import { openRemote } from "./remote.js"
import type { Call, Reply, Transport } from "./transport.js"

export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Read for the FIDELIS_* defaults and, in local mode, the database configuration. */
  readonly env: NodeJS.ProcessEnv
  /** Aborting it (Ctrl-C) interrupts the call in flight. */
  readonly signal?: AbortSignal | undefined
  /** The terminal stderr is, when it is one: where progress bars draw and questions are asked. */
  readonly terminal?: NodeJS.WriteStream | undefined
  /** Colour for each stream, where a person reads it (see colour.ts). */
  readonly styles: { readonly stdout: Styles; readonly stderr: Styles }
}

/** Procedures whose metadata marks them destructive (revoking a key, cancelling a coupon). */
const destructive = (path: string): string | undefined => {
  const meta = catalogueOf(appRouter).find((entry) => entry.path === path)?.meta
  return meta?.tool?.destructive === true ? (meta.openapi?.summary ?? path) : undefined
}

/**
 * A destructive command asks first on a terminal; without one (a script) it needs `--yes`, so a
 * pipeline never destroys anything by accident.
 */
const confirmDestructive = async (path: string, yes: boolean, io: CliIo) => {
  const action = destructive(path)
  if (action === undefined || yes) return
  if (!canAsk(io.terminal)) {
    throw new CommandFailed(`"${action}" cannot be undone: confirm with --yes`, ExitCode.Usage)
  }
  const answer = await ask(io.terminal, `${action}: this cannot be undone. Continue? [y/N] `)
  if (!/^y(es)?$/i.test(answer.trim())) throw new CommandFailed("cancelled", ExitCode.Usage)
}

/**
 * Said once per command (the connection opens once), on stderr so `--json` output stays clean. The
 * flag still works: scripts written with it keep running while their authors move the key.
 */
const KEY_FLAG_WARNING =
  "warning: --api-key shows the key to every user of this machine (in the process list) and leaves it in " +
  "your shell history; set FIDELIS_API_KEY, or keep it in a profile (fidelis config set api_key), instead\n"

const sameServer = (a: string, b: string | undefined) =>
  b !== undefined && a.replace(/\/+$/, "") === b.replace(/\/+$/, "")

/** The program's global options as commander parsed them. */
export interface GlobalOptions {
  readonly url?: string
  readonly apiKey?: string
  readonly empresa?: string
  readonly profile?: string
  readonly json?: boolean
  readonly quiet?: boolean
  readonly yes?: boolean
}

/**
 * One invocation's connection: opened on the first call (so --help and usage errors never touch
 * the database), closed once at the end so the process exits promptly.
 */
export const createSession = (io: CliIo, options: () => GlobalOptions) => {
  let transport: Promise<Transport> | undefined

  const open = async (): Promise<Transport> => {
    const given = options()
    const path = configPath(io.env)
    const profile = selectProfile(path, readConfig(path), requestedProfile(given.profile, io.env))
    // Each setting on its own: a flag, else its environment variable, else the profile.
    const url = given.url || io.env["FIDELIS_URL"] || profile.values.url || undefined
    // A profile's key goes only to its own server: `--url http://localhost:3000` must not receive
    // the production key of the default profile.
    const profileKey = url !== undefined && sameServer(url, profile.values.url) ? profile.values.api_key : undefined
    const apiKey = given.apiKey ?? io.env["FIDELIS_API_KEY"] ?? profileKey
    const empresa = given.empresa ?? io.env["FIDELIS_EMPRESA"] ?? profile.values.empresa
    if (url !== undefined) {
      if (given.apiKey !== undefined) io.stderr(KEY_FLAG_WARNING)
      return openRemote({ url, apiKey, empresa, signal: io.signal })
    }
    // A key without a URL means the user believes they are remote; acting on the local data instead
    // would be a silent surprise.
    if (given.apiKey !== undefined) {
      throw new CommandFailed(
        "--api-key needs --url (or FIDELIS_URL); without one the CLI works on the local database",
        ExitCode.Usage
      )
    }
    if (profile.values.api_key !== undefined) {
      throw new CommandFailed(
        `profile "${profile.name}" has an api_key but no url; ` +
          `set one with: fidelis config set --profile ${profile.name} url <url>`,
        ExitCode.Config
      )
    }
    return openLocal({ env: io.env, empresa, signal: io.signal })
  }

  /** One call, for commands that print their own output. */
  const call = async (request: Call): Promise<Reply> => {
    transport ??= open()
    try {
      return await (await transport).call(request)
    } catch (error) {
      throw io.signal?.aborted ? new CommandFailed("interrupted", ExitCode.Interrupted) : error
    }
  }

  const run = async (request: Call): Promise<void> => {
    await confirmDestructive(request.path, options().yes === true, io)
    const reply = await call(request)
    if (reply.headers.get("idempotent-replayed") === "true") {
      io.stderr("note: replayed the result stored for this idempotency key; nothing was done again\n")
    }
    io.stdout(render(reply.value, outputMode(options()), io.styles.stdout))
  }

  const close = async () => {
    const opened = await transport?.catch(() => undefined)
    await opened?.close()
  }

  return { run, call, close }
}
