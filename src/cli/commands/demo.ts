import { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function demoCommand(ctx: CommandContext): Command {
  return new Command('demo')
    .description('a guided tour on an embedded mock: nothing to set up, nothing left behind')
    .option('--keep', 'keep the temporary configuration directory and print where it is')
    .addHelpText('after', '\nExamples:\n  ksctl demo\n  ksctl demo --keep')
    .action(async (options: { keep?: boolean }) =>
      (await import('./demo-actions.js')).demo(ctx, options.keep === true),
    );
}
