import { Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';

export function demoCommand(ctx: CommandContext): Command {
  return new Command('demo')
    .description('a guided tour on an embedded mock: nothing to set up, nothing left behind')
    .option('--keep', 'keep the temporary configuration directory and print where it is')
    .option('--no-pause', 'run straight through, without waiting for Enter between steps')
    .addHelpText(
      'after',
      '\nOn a terminal the tour waits after each step: Enter shows the next, q or Ctrl-C stops it (the mock is closed and its files removed either way). Piped, or with --no-pause, it runs straight through.\n\nExamples:\n  ksctl demo\n  ksctl demo --no-pause\n  ksctl demo --keep',
    )
    .action(async (options: { keep?: boolean; pause: boolean }) =>
      (await import('./demo-actions.js')).demo(ctx, {
        keep: options.keep === true,
        pause: options.pause,
      }),
    );
}
