/**
 * The command tree as shell completion sees it, read from the program itself: each command's
 * names, options (with what their values can be), arguments and subcommands, and the lookup
 * tables the generated scripts are made of (completion-scripts.ts writes them out per shell).
 */
import type { Command, Option } from 'commander';

/** Names that `ksctl __complete KIND` looks up at the moment the user presses Tab. */
export const NAME_KINDS = ['marking', 'value', 'context', 'profile'] as const;
export type NameKind = (typeof NAME_KINDS)[number];

/**
 * What a word after a flag or in an argument's place can be: one of fixed choices, a name looked
 * up live, a file, or free text (nothing offered).
 */
type Completion =
  | { kind: 'choice'; words: string[] }
  | { kind: 'name'; name: NameKind }
  | { kind: 'file' }
  | { kind: 'text' };

interface OptionNode {
  flags: string[];
  description: string;
  /** Undefined for a switch. */
  value?: Completion;
}

/** A command as completion sees it: its words, options, arguments and subcommands. */
export interface Node {
  path: string;
  names: string[];
  description: string;
  options: OptionNode[];
  /** What each positional argument is; the last repeats when it is variadic. */
  args: Completion[];
  variadic: boolean;
  children: Node[];
}

/** Options whose values are names of things, by commander's attribute name. */
const OPTION_NAMES: Record<string, NameKind> = {
  context: 'context',
  target: 'context',
  profile: 'profile',
  defaultValue: 'value',
  removeValue: 'value',
};

/** Commands that take new names: nothing existing to offer. */
const NEW_NAMES = new Set(['add', 'create']);

function optionValue(cmd: Command, o: Option): Completion | undefined {
  if (!o.required && !o.optional) return undefined;
  if (o.argChoices) return { kind: 'choice', words: o.argChoices };
  const name = OPTION_NAMES[o.attributeName()];
  // A new marking's default value is one of its new values: nothing existing to offer.
  if (name && !(name === 'value' && NEW_NAMES.has(cmd.name()))) return { kind: 'name', name };
  // Whole words only: `<profile>` names a profile, not a file.
  return /<([^>]*[^a-z>])?(file|path|dir)>/.test(o.flags) ? { kind: 'file' } : { kind: 'text' };
}

export function describe(cmd: Command, path: string): Node {
  const help = cmd.createHelp();
  const args: Completion[] = cmd.registeredArguments.map((a) => {
    if (a.argChoices) return { kind: 'choice', words: a.argChoices };
    const name = NAME_KINDS.find((k) => k === a.name());
    return name && !NEW_NAMES.has(cmd.name()) ? { kind: 'name', name } : { kind: 'text' };
  });
  return {
    path,
    names: [cmd.name(), ...cmd.aliases()],
    description: cmd.description(),
    options: help.visibleOptions(cmd).map((o) => ({
      flags: [o.short, o.long].filter((f): f is string => f !== undefined),
      description: o.description,
      value: optionValue(cmd, o),
    })),
    args,
    variadic: cmd.registeredArguments.at(-1)?.variadic === true,
    children: help
      .visibleCommands(cmd)
      .filter((sub) => sub.name() !== 'help')
      .map((sub) => describe(sub, path === '' ? sub.name() : `${path} ${sub.name()}`)),
  };
}

export function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.children) walk(child, visit);
}

/** The program's own options (but --help and --version) apply after any subcommand too. */
function globalOptions(root: Node): OptionNode[] {
  return root.options.filter((o) => !o.flags.includes('--help') && !o.flags.includes('--version'));
}

export const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A completion as one shell word for the generated lookups: `choice a b`, `name marking`, ... */
export function spec(c: Completion): string {
  if (c.kind === 'choice') return `choice ${c.words.join(' ')}`;
  if (c.kind === 'name') return `name ${c.name}`;
  return c.kind;
}

/** `path|word` patterns for each subcommand name and alias, the one place paths are built. */
export function pathCases(root: Node): [pattern: string, path: string][] {
  const cases: [string, string][] = [];
  walk(root, (n) => {
    for (const child of n.children) {
      for (const name of child.names) cases.push([`${n.path}|${name}`, child.path]);
    }
  });
  return cases;
}

/** `path|flag` patterns for every flag that takes a value, the command's own before the global. */
export function optionCases(root: Node): [pattern: string, spec: string][] {
  const cases: [string, string][] = [];
  walk(root, (n) => {
    if (n.path === '') return;
    for (const o of n.options) {
      if (o.value) for (const f of o.flags) cases.push([`${n.path}|${f}`, spec(o.value)]);
    }
  });
  for (const o of globalOptions(root)) {
    if (o.value) for (const f of o.flags) cases.push([`*|${f}`, spec(o.value)]);
  }
  return cases;
}

export function argumentCases(root: Node): [path: string, specs: string[], variadic: boolean][] {
  const cases: [string, string[], boolean][] = [];
  walk(root, (n) => {
    if (n.args.length > 0) cases.push([n.path, n.args.map(spec), n.variadic]);
  });
  return cases;
}

/** Words offered at a path when the current word does not start with `-`, and with it. */
export function wordsAt(root: Node, n: Node): { commands: string[]; options: string[] } {
  const own = n.options.flatMap((o) => o.flags.filter((f) => f.startsWith('--')));
  const global = n === root ? [] : globalOptions(root).flatMap((o) => o.flags);
  return {
    commands: n.children.map((c) => c.names[0]!),
    options: [...new Set([...own, ...global.filter((f) => f.startsWith('--'))])],
  };
}
