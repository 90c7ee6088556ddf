/**
 * Shell completion scripts for bash, zsh and fish, generated from the program's command tree
 * (completion-tree.ts), with names looked up live through `ksctl __complete`.
 */
import type { Command } from 'commander';
import {
  argumentCases,
  describe,
  type Node,
  optionCases,
  pathCases,
  quote,
  spec,
  walk,
  wordsAt,
} from './completion-tree.js';

const HEADER = (shell: string, load: string) =>
  `# ${shell} completion for ksctl, generated from its commands (npm run completions)\n# load it with: ${load}\n`;

/**
 * `_ksctl_path`, `_ksctl_option` and the cases of `_ksctl_argument`: plain `case` statements that
 * bash and zsh read alike (the completion functions around them differ).
 */
function caseLookups(root: Node): { lookups: string; argumentCases: string } {
  const casePattern = (pattern: string) =>
    pattern.startsWith('*|') ? `*${quote(pattern.slice(1))}` : quote(pattern);
  const paths = pathCases(root)
    .map(([pattern, path]) => `    ${quote(pattern)}) echo ${quote(path)} ;;`)
    .join('\n');
  const options = optionCases(root)
    .map(([pattern, s]) => `    ${casePattern(pattern)}) echo ${quote(s)} ;;`)
    .join('\n');
  const argumentLines = argumentCases(root)
    .map(
      ([path, specs, variadic]) =>
        `    ${quote(path)}) specs=(${specs.map(quote).join(' ')}) variadic=${variadic ? 1 : 0} ;;`,
    )
    .join('\n');
  return {
    lookups: `# The subcommand a word leads to from a path ("markings" + "ls" = "markings list").
_ksctl_path() {
  case "$1|$2" in
${paths}
    *) return 1 ;;
  esac
}

# What the value of a flag is (choice WORDS, name KIND, file or text); fails for a switch.
_ksctl_option() {
  case "$1|$2" in
${options}
    *) return 1 ;;
  esac
}`,
    argumentCases: argumentLines,
  };
}

function bash(root: Node): string {
  const { lookups, argumentCases: args } = caseLookups(root);
  const words: string[] = [];
  walk(root, (n) => {
    const { commands, options: flags } = wordsAt(root, n);
    words.push(
      `    ${quote(n.path)}) subcommands=${quote(commands.join(' '))} flags=${quote(flags.join(' '))} ;;`,
    );
  });
  return `${HEADER('bash', 'source <(ksctl completion bash)')}
${lookups}

# What the Nth (from 0) positional argument of a command is.
_ksctl_argument() {
  local specs=() variadic=0
  case "$1" in
${args}
    *) return 1 ;;
  esac
  if (($2 < \${#specs[@]})); then echo "\${specs[$2]}"
  elif ((variadic)); then echo "\${specs[\${#specs[@]}-1]}"
  else return 1; fi
}

# The subcommands and long flags of a command.
_ksctl_words() {
  local subcommands="" flags=""
  case "$1" in
${words.join('\n')}
  esac
  if [[ "$2" == -* ]]; then echo "$flags"; else echo "$subcommands"; fi
}

# Names looked up live (markings from the service, contexts, profiles); silent when they cannot be.
# A line that begins with a tab is a hint (more names than shown): offered as it is, never alone.
_ksctl_names() {
  local name
  while IFS= read -r name; do
    if [[ "$name" == $'\\t'* ]]; then COMPREPLY+=("\${name#$'\\t'}")
    elif [[ -n "$name" ]]; then COMPREPLY+=("$(printf '%q' "$name")"); fi
  done < <("\${COMP_WORDS[0]}" __complete "$1" \${_ksctl_context:+--context "$_ksctl_context"} \${2:+--marking "$2"} -- "$cur" 2>/dev/null)
}

_ksctl_complete() {
  case "$1" in
    'choice '*) COMPREPLY=($(compgen -W "\${1#choice }" -- "$cur")) ;;
    'name '*) _ksctl_names "\${1#name }" "$2" ;;
    # As file names: a directory gets its "/" and no space after it, so the path goes on.
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
  esac
}

_ksctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i next spec pending=""
  local _ksctl_context="" args=()
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n "$pending" ]]; then
      # The value of the flag before (with "=" a word of its own, as bash splits --flag=value).
      [[ "$w" == "=" ]] && continue
      [[ "$pending" == --context ]] && _ksctl_context="$w"
      pending=""
      continue
    fi
    if [[ "$w" == -* ]]; then
      _ksctl_option "$path" "$w" >/dev/null && pending="$w"
      continue
    fi
    if next="$(_ksctl_path "$path" "$w")"; then path="$next"; else args+=("$w"); fi
  done
  # The word is a flag's value: after "--flag " or "--flag=".
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  [[ "$prev" == "=" && $COMP_CWORD -ge 2 ]] && prev="\${COMP_WORDS[COMP_CWORD-2]}"
  [[ "$cur" == "=" ]] && cur=""
  if [[ "$prev" == -* ]] && spec="$(_ksctl_option "$path" "$prev")"; then
    _ksctl_complete "$spec" "\${args[0]}"
    return
  fi
  if [[ "$cur" != -* ]] && spec="$(_ksctl_argument "$path" "\${#args[@]}")"; then
    _ksctl_complete "$spec" "\${args[0]}"
    return
  fi
  COMPREPLY=($(compgen -W "$(_ksctl_words "$path" "$cur")" -- "$cur"))
}

complete -F _ksctl ksctl
`;
}

/**
 * Native zsh: `commands`, `options` and `path` are special parameters there, so the bash script
 * cannot simply run under bashcompinit. Works both sourced (`source <(ksctl completion zsh)`, after
 * compinit) and autoloaded from a file `_ksctl` on `fpath`.
 */
function zsh(root: Node): string {
  const { lookups, argumentCases: args } = caseLookups(root);
  const words: string[] = [];
  walk(root, (n) => {
    const { commands, options: flags } = wordsAt(root, n);
    words.push(
      `    ${quote(n.path)}) subcommands=(${commands.map(quote).join(' ')}) flags=(${flags.map(quote).join(' ')}) ;;`,
    );
  });
  return `#compdef ksctl
${HEADER('zsh', 'source <(ksctl completion zsh), after compinit; or save it as _ksctl on $fpath')}
${lookups}

# What the Nth (from 1) positional argument of a command is.
_ksctl_argument() {
  local -a specs
  local variadic=0
  case "$1" in
${args}
    *) return 1 ;;
  esac
  if (($2 <= \${#specs})); then print -r -- "\${specs[$2]}"
  elif ((variadic)); then print -r -- "\${specs[-1]}"
  else return 1; fi
}

# Offers the subcommands, or with a leading "-" the long flags, of a command.
_ksctl_words() {
  local -a subcommands flags
  case "$1" in
${words.join('\n')}
  esac
  if [[ "$2" == -* ]]; then compadd -- "\${flags[@]}"; else compadd -- "\${subcommands[@]}"; fi
}

# Offers what a spec allows; names are looked up live and silent when they cannot be.
_ksctl_complete() {
  local -a found flags hint
  [[ -n "$_ksctl_context" ]] && flags+=(--context "$_ksctl_context")
  [[ -n "$2" ]] && flags+=(--marking "$2")
  case "$1" in
    'choice '*) compadd -- \${=1#choice } ;;
    'name '*)
      found=("\${(@f)$("\${words[1]}" __complete "\${1#name }" "\${flags[@]}" -- "$PREFIX" 2>/dev/null)}")
      # A line that begins with a tab is a hint (more names than shown): a message, not a match.
      compadd -- "\${(@)\${(@)found:#}:#$'\\t'*}"
      hint=("\${(@M)found:#$'\\t'*}")
      (( \${#hint} )) && _message -r "\${hint[1]#$'\\t'}"
      ;;
    file) _files ;;
  esac
}

_ksctl() {
  local cmdpath="" w i next spec pending="" prev _ksctl_context=""
  local -a args
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    if [[ -n "$pending" ]]; then
      [[ "$pending" == --context ]] && _ksctl_context="$w"
      pending=""
      continue
    fi
    if [[ "$w" == -* ]]; then
      [[ "$w" != *=* ]] && _ksctl_option "$cmdpath" "$w" >/dev/null && pending="$w"
      [[ "$w" == --context=* ]] && _ksctl_context="\${w#*=}"
      continue
    fi
    if next="$(_ksctl_path "$cmdpath" "$w")"; then cmdpath="$next"; else args+=("$w"); fi
  done
  # The word is a flag's value: after "--flag " or "--flag=".
  prev="\${words[CURRENT-1]}"
  if [[ "$PREFIX" == --*=* ]]; then
    prev="\${PREFIX%%=*}"
    compset -P '*='
  elif [[ "$prev" != -* ]]; then
    prev=""
  fi
  if [[ -n "$prev" ]] && spec="$(_ksctl_option "$cmdpath" "$prev")"; then
    _ksctl_complete "$spec" "\${args[1]}"
    return
  fi
  if [[ "$PREFIX" != -* ]] && spec="$(_ksctl_argument "$cmdpath" "$((\${#args} + 1))")"; then
    _ksctl_complete "$spec" "\${args[1]}"
    return
  fi
  _ksctl_words "$cmdpath" "$PREFIX"
}

if [[ "\${funcstack[1]}" == _ksctl ]]; then
  _ksctl "$@"
else
  compdef _ksctl ksctl
fi
`;
}

function fish(root: Node): string {
  const paths = pathCases(root)
    .map(([pattern, path]) => `        case ${quote(pattern)}\n            echo ${quote(path)}`)
    .join('\n');
  const options = optionCases(root)
    .map(([pattern, s]) => `        case ${quote(pattern)}\n            echo ${quote(s)}`)
    .join('\n');
  const args = argumentCases(root)
    .map(
      ([path, specs, variadic]) =>
        `        case ${quote(path)}\n            set specs ${specs.map(quote).join(' ')}\n            set variadic ${variadic ? 1 : 0}`,
    )
    .join('\n');
  return `${HEADER('fish', 'ksctl completion fish | source')}
# The subcommand a word leads to from a path ("markings" + "ls" = "markings list").
function __ksctl_path
    switch "$argv[1]|$argv[2]"
${paths}
        case '*'
            return 1
    end
end

# What the value of a flag is (choice WORDS, name KIND, file or text); fails for a switch.
function __ksctl_option
    switch "$argv[1]|$argv[2]"
${options}
        case '*'
            return 1
    end
end

# What the Nth (from 1) positional argument of a command is.
function __ksctl_argument
    set -l specs
    set -l variadic 0
    switch "$argv[1]"
${args}
        case '*'
            return 1
    end
    if test $argv[2] -le (count $specs)
        echo $specs[$argv[2]]
    else if test $variadic = 1
        echo $specs[-1]
    else
        return 1
    end
end

# Reads the command line typed so far: the command path, its arguments and the --context given.
function __ksctl_parse
    set -g __ksctl_cmd ''
    set -g __ksctl_args
    set -g __ksctl_context ''
    set -l pending ''
    for w in (commandline -opc)[2..-1]
        if test -n "$pending"
            test "$pending" = --context; and set __ksctl_context $w
            set pending ''
            continue
        end
        if string match -q -- '-*' $w
            if not string match -q -- '*=*' $w; and __ksctl_option "$__ksctl_cmd" $w >/dev/null
                set pending $w
            end
            continue
        end
        set -l next (__ksctl_path "$__ksctl_cmd" $w)
        if test $status -eq 0
            set __ksctl_cmd $next
        else
            set -a __ksctl_args $w
        end
    end
end

function __ksctl_at
    __ksctl_parse
    test "$__ksctl_cmd" = "$argv[1]"
end

# Names looked up live (markings from the service, contexts, profiles); silent when they cannot be.
function __ksctl_value
    switch $argv[1]
        case choice
            printf '%s\\n' $argv[2..-1]
        case name
            set -l flags
            test -n "$__ksctl_context"; and set -a flags --context $__ksctl_context
            test -n "$__ksctl_args[1]"; and set -a flags --marking $__ksctl_args[1]
            # A line that begins with a tab is a hint (more names than shown): fish shows it as
            # the description of the word typed so far.
            set -l typed (commandline -ct)
            for line in (ksctl __complete $argv[2] $flags -- "$typed" 2>/dev/null)
                if string match -q -- \\t'*' $line
                    printf '%s\\t%s\\n' "$typed" (string sub -s 2 -- $line)
                else
                    printf '%s\\n' $line
                end
            end
    end
end

function __ksctl_arguments
    __ksctl_parse
    set -l spec (__ksctl_argument "$__ksctl_cmd" (math (count $__ksctl_args) + 1)); or return
    set spec (string split ' ' -- $spec)
    test $spec[1] = file; and __fish_complete_path (commandline -ct); and return
    __ksctl_value $spec
end

complete -c ksctl -f
complete -c ksctl -a '(__ksctl_arguments)'
${fishCompletions(root).join('\n')}
`;
}

/** fish's `complete` lines: each command's subcommands and options, global options everywhere. */
function fishCompletions(root: Node): string[] {
  const lines: string[] = [];
  walk(root, (n) => {
    const at = `__ksctl_at ${quote(n.path)}`;
    for (const child of n.children) {
      lines.push(
        `complete -c ksctl -n ${quote(at)} -a ${quote(child.names[0]!)} -d ${quote(child.description)}`,
      );
    }
    const options = n === root ? n.options : n.options.filter((o) => !o.flags.includes('--help'));
    for (const o of options) {
      const long = o.flags.find((f) => f.startsWith('--'));
      const short = o.flags.find((f) => !f.startsWith('--'));
      const global = n === root && !o.flags.includes('--version');
      const parts = ['complete -c ksctl'];
      if (!global) parts.push(`-n ${quote(at)}`);
      if (long) parts.push(`-l ${long.slice(2)}`);
      if (short) parts.push(`-s ${short.slice(1)}`);
      if (o.value?.kind === 'file') parts.push('-r -F');
      else if (o.value) parts.push(`-x -a ${quote(`(__ksctl_value ${spec(o.value)})`)}`);
      parts.push(`-d ${quote(o.description)}`);
      lines.push(parts.join(' '));
    }
  });
  return lines;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A completion script for the whole command tree, generated from the program itself. */
export function completionScript(program: Command, shell: Shell): string {
  const root = describe(program, '');
  if (shell === 'fish') return fish(root);
  return shell === 'zsh' ? zsh(root) : bash(root);
}
