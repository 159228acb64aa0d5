import {
  configFromEnv,
  createAppCaller,
  createRequestContext,
  LOCAL_ADMIN,
  makeRuntime,
  problemOf,
  procedureAt
} from "@fidelis/core"
import { EmbeddedDatabaseBusy, openFailureOf, openFailureReason } from "@fidelis/db"
import { TRPCError } from "@trpc/server"
import { LogLevel } from "effect"
import { CommandFailed, ExitCode, exitCodeOf, problemLine } from "./exit-codes.js"
import type { Transport } from "./transport.js"

/**
 * Opening the runtime builds the database layer; its typed failure (the embedded database held by
 * another process) is told apart from an unreachable server.
 */
const openFailure = (error: unknown): CommandFailed => {
  const failure = openFailureOf(error)
  if (failure instanceof EmbeddedDatabaseBusy) {
    // A server holds it: the command needs --url, which retrying will not change. Another
    // process (a CLI command) lets go soon: unavailable for now.
    const exit = failure.url === undefined ? ExitCode.Unavailable : ExitCode.Usage
    return new CommandFailed(failure.message, exit)
  }
  return new CommandFailed(`cannot open the database: ${openFailureReason(error)}`, ExitCode.Unavailable)
}

const callFailure = (error: unknown, requestId: string): CommandFailed => {
  if (!(error instanceof TRPCError)) return new CommandFailed(String(error), ExitCode.Failure)
  const { status, body } = problemOf(error, requestId)
  return new CommandFailed(problemLine(body.detail, status, error.message), exitCodeOf(status), body)
}

export interface LocalOptions {
  readonly env: NodeJS.ProcessEnv
  readonly empresa: string | undefined
  readonly signal: AbortSignal | undefined
}

/**
 * Runs procedures in this process against DATABASE_URL or the embedded database. Whoever can run
 * the CLI next to the data is platform staff, hence a trusted admin principal and no key.
 */
export const openLocal = async ({ env, empresa, signal }: LocalOptions): Promise<Transport> => {
  let config
  try {
    config = configFromEnv(env)
  } catch (error) {
    throw new CommandFailed((error as Error).message, ExitCode.Usage)
  }
  const runtime = makeRuntime(config, { logLevel: LogLevel.None })
  try {
    await runtime.runtime()
  } catch (error) {
    await runtime.dispose()
    throw openFailure(error)
  }
  return {
    call: async ({ path, input, idempotencyKey }) => {
      const headers = new Headers()
      const ctx = createRequestContext({
        runtime,
        trustedPrincipal: LOCAL_ADMIN,
        actAsEmpresa: empresa,
        idempotencyKey,
        resHeaders: headers,
        signal
      })
      try {
        return { value: await procedureAt(createAppCaller(ctx), path)(input), headers }
      } catch (error) {
        throw callFailure(error, ctx.requestId)
      }
    },
    close: () => runtime.dispose()
  }
}
