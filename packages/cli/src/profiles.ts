import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { CommandFailed, ExitCode } from "./exit-codes.js"

/**
 * The config file: named profiles of the values staff would otherwise retype on every command.
 *
 *   {"default_profile": "prod",
 *    "profiles": {"prod": {"url": "https://…", "api_key": "fid_…"}, "loja": {"empresa": "padaria-sol"}}}
 *
 * It lives at $FIDELIS_CONFIG, else $XDG_CONFIG_HOME/fidelis/config.json, else
 * ~/.config/fidelis/config.json, and is written readable by its owner only, since it holds keys.
 */

export const PROFILE_KEYS = ["url", "api_key", "empresa"] as const
export type ProfileKey = (typeof PROFILE_KEYS)[number]
export type Profile = Partial<Record<ProfileKey, string>>

export interface ConfigFile {
  readonly default_profile?: string
  readonly profiles: Readonly<Record<string, Profile>>
}

/** A profile as chosen for one invocation; `name` is undefined when no profile applies. */
export interface SelectedProfile {
  readonly name: string | undefined
  readonly values: Profile
}

export const configError = (message: string) => new CommandFailed(message, ExitCode.Config)

export const configPath = (env: NodeJS.ProcessEnv): string => {
  if (env["FIDELIS_CONFIG"]) return env["FIDELIS_CONFIG"]
  const base = env["XDG_CONFIG_HOME"] || join(env["HOME"] || homedir(), ".config")
  return join(base, "fidelis", "config.json")
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Checks the file's shape; a typo (`apikey`) must not silently leave a command without its key. */
const parsed = (path: string, value: unknown): ConfigFile => {
  if (!isRecord(value)) throw configError(`${path}: expected a JSON object with "profiles"`)
  const { default_profile, profiles = {}, ...unknown } = value
  const stray = Object.keys(unknown)
  if (stray.length > 0) throw configError(`${path}: unknown setting "${stray[0]}" (known: default_profile, profiles)`)
  if (default_profile !== undefined && typeof default_profile !== "string") {
    throw configError(`${path}: "default_profile" must be a profile name`)
  }
  if (!isRecord(profiles)) throw configError(`${path}: "profiles" must map names to profiles`)
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isRecord(profile)) throw configError(`${path}: profile "${name}" must be an object`)
    for (const [key, setting] of Object.entries(profile)) {
      if (!(PROFILE_KEYS as ReadonlyArray<string>).includes(key)) {
        throw configError(`${path}: profile "${name}" has unknown key "${key}" (known: ${PROFILE_KEYS.join(", ")})`)
      }
      if (typeof setting !== "string") throw configError(`${path}: profile "${name}": "${key}" must be a string`)
    }
  }
  return { ...(default_profile !== undefined && { default_profile }), profiles: profiles as Record<string, Profile> }
}

/** The config file's contents; no file is an empty config. */
export const readConfig = (path: string): ConfigFile => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} }
    throw configError(`cannot read ${path}: ${(error as Error).message}`)
  }
  try {
    return parsed(path, JSON.parse(text))
  } catch (error) {
    if (error instanceof CommandFailed) throw error
    throw configError(`${path} is not valid JSON: ${(error as Error).message}`)
  }
}

/** Replaces the file in one rename, owner-only (0600 in a 0700 directory it creates). */
export const writeConfig = (path: string, config: ConfigFile): void => {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, path)
}

/** The profile asked for: `--profile`, else FIDELIS_PROFILE; none (or empty) leaves the file's default. */
export const requestedProfile = (flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined =>
  flag ?? env["FIDELIS_PROFILE"]

/** The profile `--profile` or FIDELIS_PROFILE names, else the file's default; naming a missing one is an error. */
export const selectProfile = (path: string, config: ConfigFile, requested: string | undefined): SelectedProfile => {
  const name = requested || config.default_profile
  if (name === undefined) return { name: undefined, values: {} }
  const values = config.profiles[name]
  if (values === undefined) {
    const known = Object.keys(config.profiles)
    const source = requested ? "" : ` (the default_profile of ${path})`
    throw configError(
      `unknown profile "${name}"${source}: ` +
        `${known.length > 0 ? `known: ${known.join(", ")}` : `${path} has no profiles`}; ` +
        `create it with: fidelis config set --profile ${name} url <url>`
    )
  }
  return { name, values }
}

/** Enough of a key to tell keys apart (`fid_…abcd`), never enough to use it. */
export const maskKey = (key: string): string =>
  `${key.startsWith("fid_") ? "fid_" : ""}…${key.length >= 16 ? key.slice(-4) : ""}`
