import type { Command } from 'commander';
import { closest } from '../../../common/text/did-you-mean.js';
import { UsageError } from '../../../common/errors.js';

/**
 * Words users bring from other tools (`values remove`, `faults add`, `context switch`), and the
 * subcommands that do what they mean here, most likely first.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  remove: ['delete', 'unset', 'clear'],
  rm: ['delete', 'remove'],
  del: ['delete'],
  erase: ['delete', 'clear'],
  add: ['create', 'set'],
  new: ['create', 'add'],
  create: ['add', 'set'],
  make: ['create', 'add'],
  show: ['get', 'list'],
  get: ['show', 'list'],
  describe: ['show', 'get'],
  view: ['show', 'get'],
  inspect: ['show', 'get'],
  info: ['show', 'status'],
  list: ['show'],
  edit: ['update', 'set', 'modify'],
  modify: ['update', 'set'],
  change: ['update', 'set', 'modify'],
  update: ['set', 'modify'],
  set: ['update', 'use'],
  switch: ['use'],
  select: ['use'],
  activate: ['use'],
  start: ['serve'],
  run: ['serve'],
  mv: ['rename'],
  move: ['rename'],
};

const visibleNames = (cmd: Command): string[] =>
  cmd.commands
    .filter((c) => c.name() !== 'help' && !c.name().startsWith('_'))
    .flatMap((c) => [c.name(), ...c.aliases()]);

/**
 * The subcommand of `parent` that `word` most likely meant: a near spelling (`markngs`), or what
 * the word means in other tools (`remove` is `delete` here).
 */
export function meantCommand(parent: Command, word: string): string | undefined {
  const names = visibleNames(parent);
  return closest(word, names) ?? SYNONYMS[word.toLowerCase()]?.find((s) => names.includes(s));
}

/**
 * `ksctl list markings`: the verb before the noun. The commands under which `word` is a
 * subcommand, as command lines: the one the next word names when it does, else every one.
 */
export function verbFirst(
  root: Command,
  word: string,
  next: string | undefined,
): { lines: string[]; named: boolean } {
  const owners = root.commands.filter((c) => visibleNames(c).includes(word));
  const named = owners.filter(
    (c) => next !== undefined && [c.name(), ...c.aliases()].includes(next),
  );
  const lines = (named.length > 0 ? named : owners).map((c) => {
    const sub = c.commands.find((s) => s.name() === word || s.aliases().includes(word))!;
    return `${root.name()} ${c.name()} ${sub.name()}`;
  });
  return { lines, named: named.length > 0 };
}

/** Adds an `Examples:` section to a command's help, one command line each. */
export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}`);
}

/**
 * `ksctl help [COMMAND...]`: the help of any command, however deep (`ksctl help markings list`);
 * commander's own help command only goes one level down.
 */
export function helpCommand(program: Command): void {
  program.helpCommand(false);
  const help = program
    .command('help')
    .description('show the help of a command')
    .argument('[command...]', 'the command, e.g. markings list')
    .action((words: string[]) => {
      let cmd = program;
      for (const [i, word] of words.entries()) {
        const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next || next.name() === 'help') {
          const meant = meantCommand(cmd, word);
          const line = ['ksctl', ...words.slice(0, i)].join(' ');
          throw new UsageError(`unknown command "${words.slice(0, i + 1).join(' ')}"`, {
            hint:
              meant === undefined
                ? `${line} --help lists the commands`
                : `did you mean ksctl help ${[...words.slice(0, i), meant].join(' ')}? (${line} --help lists the commands)`,
          });
        }
        cmd = next;
      }
      cmd.outputHelp();
    });
  examples(help, 'ksctl help markings list', 'ksctl markings list --help');
}
