import type { Command } from 'commander';
import { UsageError } from '../errors.js';

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
          throw new UsageError(`unknown command "${words.slice(0, i + 1).join(' ')}"`, {
            hint: `${['ksctl', ...words.slice(0, i)].join(' ')} --help lists the commands`,
          });
        }
        cmd = next;
      }
      cmd.outputHelp();
    });
  examples(help, 'ksctl help markings list', 'ksctl markings list --help');
}
