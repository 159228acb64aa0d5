import type { Command } from "commander"

/**
 * Shell completion derived from the commander program itself, so every command and option the
 * router adds completes without a hand-kept list. zsh reuses the bash function through
 * bashcompinit.
 */

const visible = (command: Command) => command.commands.filter((sub) => sub.name() !== "help")

const longOptions = (command: Command) => command.options.flatMap((option) => (option.long ? [option.long] : []))

/** `case` arms: the command path typed so far -> the words that may follow it. */
const arms = (command: Command, path: string[], globals: string[], out: string[]) => {
  const words = [...visible(command).map((sub) => sub.name()), ...longOptions(command), ...globals]
  out.push(`    "${path.join(" ")}") words="${[...new Set(words)].join(" ")}" ;;`)
  for (const sub of visible(command)) arms(sub, [...path, sub.name()], globals, out)
  return out
}

const valueOptions = (program: Command): string[] => {
  const found = new Set<string>()
  const visit = (command: Command) => {
    for (const option of command.options)
      if (option.long && (option.required || option.optional)) found.add(option.long)
    command.commands.forEach(visit)
  }
  visit(program)
  return [...found]
}

export const bashCompletion = (program: Command): string => {
  const globals = longOptions(program)
  return `# fidelis completion for bash: eval "$(fidelis completion bash)"
_fidelis() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" words="" i skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    local word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${valueOptions(program).join("|")}) skip=1 ;;
      -*) ;;
      *) path="\${path:+$path }$word" ;;
    esac
  done
  case "$path" in
${arms(program, [], globals, []).join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _fidelis fidelis
`
}

export const zshCompletion = (program: Command): string =>
  `# fidelis completion for zsh: eval "$(fidelis completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split("\n").slice(1).join("\n")}`
