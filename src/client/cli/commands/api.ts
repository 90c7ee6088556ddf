import { Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';
import { collect } from '../kit/options.js';
import type { ApiOptions } from './api-actions.js';

/** `--query` has no `-q`: the global `-q` (`--quiet`) takes it anywhere on the command line. */
export function apiCommand(ctx: CommandContext): Command {
  return new Command('api')
    .description('send an authenticated request to the service and print the answer (escape hatch)')
    .argument('<method>', 'GET, POST, PUT, DELETE, ...')
    .argument('<path>', 'a path under the base URL (e.g. /markings), or a full URL')
    .option('--query <key=value>', 'a query parameter; repeat for more', collect)
    .option('-H, --header <name:value>', 'a request header; repeat for more', collect)
    .option(
      '--input <path>',
      'request body from a file, or - for stdin (sent as JSON; at most 64 MiB, env KSCTL_MAX_INPUT_MIB)',
    )
    .option('-i, --include', 'print the status line and answer headers on stderr')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl api GET /markings --query valueLimit=0 --query limit=5\n  echo \'{"name":"x"}\' | ksctl api POST /markings --input -',
    )
    .action(async (method: string, path: string, options: ApiOptions) =>
      (await import('./api-actions.js')).api(ctx, method, path, options),
    );
}
