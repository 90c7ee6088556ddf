import { Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';
import { examples } from '../kit/help.js';

export function statusCommand(ctx: CommandContext): Command {
  const status = new Command('status')
    .description('who you are, where, with which scopes, and whether the service answers')
    .addHelpText(
      'after',
      '\nThe exit code says whether all is well: 0, else the code of the problem (2 nothing\nconfigured, 4 bad credentials, 5 wrong tenant, 7 service unreachable).',
    )
    .action(async () => (await import('./status-actions.js')).status(ctx));
  return examples(status, 'ksctl status', 'ksctl status --context prod -o json');
}
