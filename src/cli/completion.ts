import type { Command } from 'commander';

/** A command as completion sees it: its words and the options it takes. */
interface Node {
  path: string[];
  names: string[];
  description: string;
  options: { flags: string[]; description: string; takesValue: boolean; choices?: string[] }[];
  children: Node[];
}

function describe(cmd: Command, path: string[]): Node {
  const own = cmd.options.map((o) => ({
    flags: [o.short, o.long].filter((f): f is string => f !== undefined),
    description: o.description,
    takesValue: o.required || o.optional,
    choices: o.argChoices,
  }));
  return {
    path,
    names: [cmd.name(), ...cmd.aliases()],
    description: cmd.description(),
    options: [...own, { flags: ['-h', '--help'], description: 'show help', takesValue: false }],
    children: cmd.commands.map((sub) => describe(sub, [...path, sub.name()])),
  };
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.children) walk(child, visit);
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(root: Node): string {
  const cases: string[] = [];
  walk(root, (n) => {
    const key = n.path.join(' ');
    const words = [...n.children.flatMap((c) => c.names), ...n.options.flatMap((o) => o.flags)];
    const valued = n.options.filter((o) => o.takesValue).flatMap((o) => o.flags);
    const choices = n.options
      .filter((o) => o.choices)
      .map(
        (o) =>
          `${o.flags.map((f) => `"${f}"`).join('|')}) COMPREPLY=($(compgen -W ${quote(o.choices!.join(' '))} -- "$cur")); return;;`,
      );
    cases.push(`    ${quote(key)})
      case "$prev" in
        ${choices.join('\n        ')}
        ${valued.length > 0 ? `${valued.map((f) => `"${f}"`).join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return;;` : ''}
      esac
      COMPREPLY=($(compgen -W ${quote(words.join(' '))} -- "$cur"));;`);
  });
  const aliases: string[] = [];
  walk(root, (n) => {
    for (const alias of n.names.slice(1)) aliases.push(`${alias}) w=${n.names[0]};;`);
  });
  return `# bash completion for ksctl; load with: source <(ksctl completion bash)
_ksctl() {
  local cur prev path w i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "$w" in ${aliases.join(' ')} esac
    case "\${path:+$path }$w" in
${walkKeys(root)
  .map((k) => `      ${quote(k)}) path="${k}";;`)
  .join('\n')}
    esac
  done
  case "$path" in
${cases.join('\n')}
  esac
}
complete -F _ksctl ksctl
`;
}

function walkKeys(root: Node): string[] {
  const keys: string[] = [];
  walk(root, (n) => {
    if (n.path.length > 0) keys.push(n.path.join(' '));
  });
  return keys;
}

function fish(root: Node): string {
  const lines = [
    '# fish completion for ksctl; load with: ksctl completion fish | source',
    'complete -c ksctl -f',
  ];
  walk(root, (n) => {
    // A node's words are offered once its path has been typed and none of its children has.
    const seen = n.path.map((p) => `__fish_seen_subcommand_from ${p}`);
    const notChild =
      n.children.length > 0
        ? [`not __fish_seen_subcommand_from ${n.children.flatMap((c) => c.names).join(' ')}`]
        : [];
    const condition =
      n.path.length === 0 ? '__fish_use_subcommand' : [...seen, ...notChild].join('; and ');
    for (const child of n.children) {
      lines.push(
        `complete -c ksctl -n ${quote(condition)} -a ${quote(child.names[0]!)} -d ${quote(child.description)}`,
      );
    }
    for (const o of n.options) {
      const long = o.flags.find((f) => f.startsWith('--'));
      const short = o.flags.find((f) => !f.startsWith('--'));
      const parts = [
        'complete -c ksctl',
        `-n ${quote(n.path.length === 0 ? 'true' : seen.join('; and '))}`,
      ];
      if (long) parts.push(`-l ${long.slice(2)}`);
      if (short) parts.push(`-s ${short.slice(1)}`);
      if (o.takesValue) parts.push(o.choices ? `-x -a ${quote(o.choices.join(' '))}` : '-r -F');
      parts.push(`-d ${quote(o.description)}`);
      lines.push(parts.join(' '));
    }
  });
  return `${lines.join('\n')}\n`;
}

function zsh(root: Node): string {
  return `#compdef ksctl
# zsh completion for ksctl; load with: source <(ksctl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(root)}`;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A completion script for the whole command tree, generated from the program itself. */
export function completionScript(program: Command, shell: Shell): string {
  const root = describe(program, []);
  if (shell === 'fish') return fish(root);
  return shell === 'zsh' ? zsh(root) : bash(root);
}
