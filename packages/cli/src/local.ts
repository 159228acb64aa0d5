import {
  configFromEnv,
  createAppCaller,
  createRequestContext,
  LOCAL_ADMIN,
  makeRuntime,
  problemOf,
  procedureAt
} from "@fidelis/core"
import { EmbeddedDatabaseBusy } from "@fidelis/db"
import { TRPCError } from "@trpc/server"
import { Cause, LogLevel, Option, Runtime } from "effect"
import { CommandFailed, ExitCode, exitCodeOf, problemLine } from "./exit-codes.js"
import type { Transport } from "./transport.js"

/**
 * Opening the runtime builds the database layer; its typed failure (the embedded database held by
 * another process) arrives wrapped in a FiberFailure, so look for it in the Cause.
 */
const openFailure = (error: unknown): CommandFailed => {
  const failure = Runtime.isFiberFailure(error)
    ? Cause.failureOption(error[Runtime.FiberFailureCauseId])
    : Option.none()
  if (Option.isSome(failure) && failure.value instanceof EmbeddedDatabaseBusy) {
    return new CommandFailed(failure.value.message, ExitCode.Unavailable)
  }
  const reason = Option.isSome(failure) && failure.value instanceof Error ? failure.value.message : String(error)
  return new CommandFailed(`cannot open the database: ${reason}`, ExitCode.Unavailable)
}

const callFailure = (error: unknown): CommandFailed => {
  if (!(error instanceof TRPCError)) return new CommandFailed(String(error), ExitCode.Failure)
  const problem = problemOf(error)
  return new CommandFailed(problemLine(problem.body.detail, problem.status, error.message), exitCodeOf(problem.status))
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
        throw callFailure(error)
      }
    },
    close: () => runtime.dispose()
  }
}
