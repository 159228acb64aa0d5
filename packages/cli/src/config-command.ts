import type { Command } from "commander"
import { text } from "node:stream/consumers"
import { CommandFailed, ExitCode } from "./exit-codes.js"
import { outputMode, render } from "./output.js"
import {
  configError,
  configPath,
  maskKey,
  PROFILE_KEYS,
  readConfig,
  requestedProfile,
  selectProfile,
  writeConfig,
  type ConfigFile,
  type Profile,
  type ProfileKey
} from "./profiles.js"
import { ask, canAsk } from "./prompt.js"
import type { CliIo, GlobalOptions } from "./session.js"

/**
 * `fidelis config …`: edits the profiles in the config file (profiles.ts). Keys are shown masked
 * everywhere, `--json` included, so a screen share or a CI log never carries one.
 */

const profileKey = (key: string): ProfileKey => {
  if ((PROFILE_KEYS as ReadonlyArray<string>).includes(key)) return key as ProfileKey
  throw new CommandFailed(`unknown key "${key}": use one of ${PROFILE_KEYS.join(", ")}`, ExitCode.Usage)
}

const checked = (key: ProfileKey, value: string): string => {
  const trimmed = value.trim()
  if (trimmed === "") throw new CommandFailed(`${key} cannot be empty`, ExitCode.Usage)
  if (key === "url") {
    let url: URL
    try {
      url = new URL(trimmed)
    } catch {
      throw new CommandFailed(
        `invalid url ${JSON.stringify(trimmed)}: expected something like https://fidelis.example.com`,
        ExitCode.Usage
      )
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new CommandFailed(`invalid url ${JSON.stringify(trimmed)}: expected http:// or https://`, ExitCode.Usage)
    }
  }
  return trimmed
}

/** A profile as shown: every key present, the API key masked. */
const shown = (profile: Profile) => ({
  url: profile.url ?? null,
  api_key: profile.api_key === undefined ? null : maskKey(profile.api_key),
  empresa: profile.empresa ?? null
})

interface ConfigContext {
  readonly io: CliIo
  readonly options: () => GlobalOptions
}

export const addConfigCommand = (program: Command, { io, options }: ConfigContext): void => {
  const path = () => configPath(io.env)
  const requested = () => requestedProfile(options().profile, io.env)
  const print = (value: unknown) => io.stdout(render(value, outputMode(options()), io.styles.stdout))

  /** The profile a change applies to: the one named, else the default, else a new "default". */
  const target = (config: ConfigFile) => requested() || config.default_profile || "default"

  const update = (change: (config: ConfigFile, name: string) => ConfigFile) => {
    const config = readConfig(path())
    const name = target(config)
    writeConfig(path(), change(config, name))
    return name
  }

  /** The value to store: the argument, else stdin when piped, else a hidden prompt (for keys). */
  const valueFor = async (key: ProfileKey, given: string | undefined): Promise<string> => {
    if (given !== undefined) return checked(key, given)
    if (!process.stdin.isTTY) return checked(key, await text(process.stdin))
    if (!canAsk(io.terminal)) throw new CommandFailed(`missing the value for ${key}`, ExitCode.Usage)
    return checked(key, await ask(io.terminal, `${key}: `, { secret: key === "api_key" }))
  }

  const config = program
    .command("config")
    .description(
      [
        "Profiles of --url, --api-key and --empresa in a config file, so they need not be typed each time.",
        "The file: $FIDELIS_CONFIG, else $XDG_CONFIG_HOME/fidelis/config.json, else ~/.config/fidelis/config.json. " +
          "--profile (or FIDELIS_PROFILE) picks a profile, else the default one; a flag or FIDELIS_* variable still " +
          "wins over the profile."
      ].join("\n\n")
    )

  config
    .command("set")
    .description(
      "Set url, api_key or empresa in the profile (--profile, else the default); without a value it is read from " +
        "stdin, or asked for without echo, so a key stays out of the shell history"
    )
    .argument("<key>", PROFILE_KEYS.join(", "))
    .argument("[value]", "the value; omit it for api_key")
    .action(async (key: string, value: string | undefined) => {
      const setting = profileKey(key)
      const stored = await valueFor(setting, value)
      const name = update((file, profile) => ({
        default_profile: file.default_profile ?? profile,
        profiles: { ...file.profiles, [profile]: { ...file.profiles[profile], [setting]: stored } }
      }))
      io.stderr(`${setting} set in profile "${name}" (${path()})\n`)
    })

  config
    .command("unset")
    .description("Remove url, api_key or empresa from the profile")
    .argument("<key>", PROFILE_KEYS.join(", "))
    .action((key: string) => {
      const setting = profileKey(key)
      const name = update((file, profile) => {
        const current = file.profiles[profile]
        if (current === undefined) throw configError(`unknown profile "${profile}"`)
        const { [setting]: _removed, ...rest } = current
        return { ...file, profiles: { ...file.profiles, [profile]: rest } }
      })
      io.stderr(`${setting} removed from profile "${name}"\n`)
    })

  config
    .command("show")
    .description("Show the selected profile, the API key masked")
    .action(() => {
      const file = readConfig(path())
      const selected = selectProfile(path(), file, requested())
      if (selected.name === undefined) {
        throw configError(
          `no profile selected and no default_profile in ${path()}; create one with: fidelis config set url <url>`
        )
      }
      print({ profile: selected.name, file: path(), ...shown(selected.values) })
    })

  config
    .command("list")
    .description("List the profiles, the API keys masked")
    .action(() => {
      const file = readConfig(path())
      const names = Object.keys(file.profiles)
      if (outputMode(options()) === "quiet") return void io.stdout(names.map((name) => `${name}\n`).join(""))
      print(
        names.map((name) => ({ profile: name, default: name === file.default_profile, ...shown(file.profiles[name]!) }))
      )
    })

  config
    .command("use")
    .description("Make a profile the default")
    .argument("<profile>", "its name")
    .action((name: string) => {
      const file = readConfig(path())
      selectProfile(path(), file, name)
      writeConfig(path(), { ...file, default_profile: name })
      io.stderr(`default profile: ${name}\n`)
    })
}
