import {
  IMPORT_BATCH_MAX,
  IMPORT_COLUMNS,
  type ImportClientRow,
  type ImportClientsResult,
  type ImportRowResult
} from "@fidelis/core"
import { readFileSync } from "node:fs"
import cliProgress from "cli-progress"
import { parse } from "csv-parse/sync"
import type { CustomCommand } from "./commands.js"
import { CommandFailed, ExitCode } from "./exit-codes.js"
import { inert, jsonText } from "./output.js"
import type { CliIo } from "./session.js"
import type { Call, Reply } from "./transport.js"

/**
 * `fidelis clients import <file.csv>`: reads the file, sends it to `clients.import` in batches of
 * the procedure's maximum (so 10,000 rows are 20 calls, well within a key's rate limit) and
 * reports every refused row by its line in the file at the end. Core decides what is a duplicate,
 * so a re-run skips what a previous run (or an interrupted one) imported.
 */

type Column = (typeof IMPORT_COLUMNS)[number]

const usage = (message: string) => new CommandFailed(message, ExitCode.Usage)

/** Data rows numbered by their line in the file (the header is line 1), as a spreadsheet shows them. */
const readClientsCsv = (file: string): ImportClientRow[] => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    throw usage(`cannot read ${file}: ${(error as Error).message}`)
  }
  let records: Array<{ record: string[]; info: { lines: number } }>
  try {
    // With `info`, each record comes with the line it ends on.
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true
    }) as unknown as typeof records
  } catch (error) {
    throw usage(`${file} is not valid CSV: ${(error as Error).message}`)
  }
  const [header, ...data] = records
  const columns = (header?.record ?? []).map((name) => name.toLowerCase())
  const unknown = columns.filter((name) => !(IMPORT_COLUMNS as ReadonlyArray<string>).includes(name))
  if (!columns.includes("nome") || unknown.length > 0) {
    throw usage(
      `${file}: the first line must name the columns, among ${IMPORT_COLUMNS.join(",")} (nome required)` +
        (unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : "")
    )
  }
  return data.map(({ record, info }) => {
    const row: ImportClientRow = { row: info.lines }
    columns.forEach((column, i) => {
      const value = record[i]
      if (value !== undefined && value !== "") row[column as Column] = value
    })
    return row
  })
}

const progressBar = (terminal: NodeJS.WriteStream) =>
  new cliProgress.SingleBar(
    {
      stream: terminal,
      format:
        "importing [{bar}] {percentage}% | {value}/{total} rows | {created} created, {skipped} skipped, " +
        "{invalid} invalid",
      barCompleteChar: "#",
      barIncompleteChar: "-",
      hideCursor: true
    },
    cliProgress.Presets.legacy
  )

const summaryOf = (file: string, dryRun: boolean, results: ReadonlyArray<ImportRowResult>) => {
  const count = (status: ImportRowResult["status"]) => results.filter((r) => r.status === status).length
  return {
    file,
    dry_run: dryRun,
    created: count("created"),
    skipped: count("skipped"),
    invalid: count("invalid"),
    results
  }
}

const humanReport = (summary: ReturnType<typeof summaryOf>) => {
  const verb = summary.dry_run ? "would be created" : "created"
  const lines = [
    `${summary.dry_run ? "dry run of" : "imported"} ${inert(summary.file)}: ${summary.created} ${verb}, ` +
      `${summary.skipped} skipped (already a client), ${summary.invalid} invalid`
  ]
  for (const result of summary.results) {
    if (result.status !== "invalid") continue
    lines.push(`  row ${result.row}: ${inert((result.errors ?? []).map((e) => `${e.field}: ${e.msg}`).join("; "))}`)
  }
  return `${lines.join("\n")}\n`
}

interface ImportContext {
  readonly io: CliIo
  readonly call: (call: Call) => Promise<Reply>
  readonly json: () => boolean
}

export const importClientsCommand = ({ io, call, json }: ImportContext): CustomCommand => ({
  description:
    `Reads a CSV file (header ${IMPORT_COLUMNS.join(",")}) and imports its clients in batches, ` +
    `with a progress bar on a terminal. Rows whose email or CPF is already a client are skipped, ` +
    `so re-running is safe; invalid rows are listed by line at the end (exit 2).`,
  jsonSchema: {
    type: "object",
    properties: {
      FILE: { type: "string", description: "CSV file to import", positional: true, optional: true },
      dryRun: { type: "boolean", description: "validate and count what would be created, writing nothing" }
    },
    required: [],
    additionalProperties: false
  },
  run: async (options) => {
    const file = options["FILE"]
    if (typeof file !== "string") throw usage("missing FILE: the CSV to import")
    const dryRun = options["dryRun"] === true
    const rows = readClientsCsv(file)
    const results: ImportRowResult[] = []
    const bar = io.terminal !== undefined && !json() && rows.length > 0 ? progressBar(io.terminal) : undefined
    const counts = { created: 0, skipped: 0, invalid: 0 }
    bar?.start(rows.length, 0, counts)
    try {
      for (let start = 0; start < rows.length; start += IMPORT_BATCH_MAX) {
        const batch = rows.slice(start, start + IMPORT_BATCH_MAX)
        let reply: Reply
        try {
          // Ctrl-C between two batches: stop here rather than send the next one.
          if (io.signal?.aborted) throw new CommandFailed("interrupted", ExitCode.Interrupted)
          reply = await call({
            path: "clients.import",
            type: "mutation",
            input: { rows: batch, dry_run: dryRun },
            idempotencyKey: undefined
          })
        } catch (error) {
          if (!(error instanceof CommandFailed) || start === 0) throw error
          // Earlier batches are committed; say so, since a re-run resumes by skipping them.
          throw new CommandFailed(
            `${error.message}; rows before line ${batch[0]!.row} were processed, run again to resume`,
            error.exitCode
          )
        }
        const batchResults = (reply.value as ImportClientsResult).results
        results.push(...batchResults)
        for (const result of batchResults) counts[result.status]++
        bar?.increment(batch.length, counts)
      }
    } finally {
      bar?.stop()
    }
    const summary = summaryOf(file, dryRun, results)
    io.stdout(json() ? `${jsonText(summary)}\n` : humanReport(summary))
    if (summary.invalid > 0) {
      throw usage(`${summary.invalid} of ${rows.length} rows are invalid and were not imported (listed above)`)
    }
  }
})
